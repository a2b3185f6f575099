// PyTorch's module hierarchy string for a node: `top(Net)::forward.layer1(Sequential)::forward.aten::conv2d`.
// One rendering shared by the symbolicator (run side) and the compiler's IR (compile side).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "symbolite/debuginfo/inlined_call_stack.h"

namespace symbolite::debuginfo {

// Appends "A0(A)" (instance name, short type), or PyTorch's UNKNOWN_INSTANCE(UNKNOWN_TYPE).
void append_instance_label(std::string& out, const std::optional<ModuleInstance>& instance);

// "top(<short top type>)::<method>" + ".<instance>(<type>)::<function>" per call + ".<node_kind>".
// `top_type` may be qualified ("__torch__.Net") or short.
std::string module_hierarchy(std::string_view top_type, std::string_view method,
                             const InlinedCallStack* call_stack, std::string_view node_kind);

}  // namespace symbolite::debuginfo
