// XNNPACK nodes for aten::conv2d (convolution2d_nhwc) and aten::linear (fully_connected_nc).
#pragma once

#include <memory>

#include "symbolite/runtime/delegate/program_backend.h"

namespace symbolite::backends {

std::unique_ptr<runtime::StepAccelerator> make_conv2d_node(const runtime::CompiledProgram& p,
                                                           std::size_t step);
std::unique_ptr<runtime::StepAccelerator> make_linear_node(const runtime::CompiledProgram& p,
                                                           std::size_t step);

}  // namespace symbolite::backends
