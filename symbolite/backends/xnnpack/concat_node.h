// aten::cat along channels of 4-D tensors, channels-last in and out: XNNPACK (2022-02) has no
// concatenation, and the reference kernel would first turn channels-last inputs back into
// NCHW. Per pixel, the inputs' channel runs are copied one after another.
#pragma once

#include <memory>

#include "symbolite/runtime/delegate/program_backend.h"

namespace symbolite::backends {

std::unique_ptr<runtime::StepAccelerator> make_concat_node(const runtime::CompiledProgram& p,
                                                           std::size_t step);

}  // namespace symbolite::backends
