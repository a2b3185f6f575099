// XNNPACK nodes for element-wise operators: clamps and activations (aten::relu, relu6,
// hardtanh, hardswish, sigmoid, in place or not), binary arithmetic with broadcasting
// (aten::add/sub/mul/div.Tensor), inference batch norm and dropout.
#pragma once

#include <memory>
#include <string_view>

#include "symbolite/runtime/delegate/program_backend.h"

namespace symbolite::backends {

// Null when `op` is not one of them or its static arguments do not fit.
std::unique_ptr<runtime::StepAccelerator> make_elementwise_node(std::string_view op,
                                                                const runtime::CompiledProgram& p,
                                                                std::size_t step);

}  // namespace symbolite::backends
