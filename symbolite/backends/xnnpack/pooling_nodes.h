// XNNPACK nodes for aten::max_pool2d, aten::avg_pool2d (no padding) and
// aten::adaptive_avg_pool2d to 1x1 (global average pooling). Channel counts are known only at
// run time: each node creates its operator on first use and again when the count changes.
#pragma once

#include <memory>
#include <string_view>

#include "symbolite/runtime/delegate/program_backend.h"

namespace symbolite::backends {

std::unique_ptr<runtime::StepAccelerator> make_pooling_node(std::string_view op,
                                                            const runtime::CompiledProgram& p,
                                                            std::size_t step);

}  // namespace symbolite::backends
