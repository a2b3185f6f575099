// `InlinedCallStack`: where an inlined node came from. When TorchScript inlines
// `self.A0.forward(x)` into the top method, every node copied from A0's body remembers the
// call: the module instance it was called on, the call site in the caller, and the name of
// the function called. Calls nest, so a node's stack is a chain from the outermost call to
// the innermost (`callee`).
//
// Nodes are immutable and shared: every node inlined through the same call shares the same
// chain tail, exactly as in the serialized `callstack_debug_map.pkl`, so memory grows with
// the number of distinct call paths, not with the number of nodes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "symbolite/debuginfo/source_range.h"

namespace symbolite::debuginfo {

// A module instance as recorded at a call: `{type, name}`, e.g. {"__torch__.A", "A0"}.
// PyTorch writes "SELF" as the name for a call to another method of the same module.
struct ModuleInstance {
  std::string type_name;  // qualified; may be empty when the compiler lost it
  std::string instance_name;
};

class InlinedCallStack;
using InlinedCallStackPtr = std::shared_ptr<const InlinedCallStack>;

// Source-range tag PyTorch writes when it had no range to record.
inline constexpr std::int64_t kNoSourceRangeTag = -1;

class InlinedCallStack {
 public:
  InlinedCallStack(std::optional<ModuleInstance> module_instance, SourceRange callsite,
                   std::int64_t callsite_tag, std::string function_name, InlinedCallStackPtr callee)
      : module_instance_(std::move(module_instance)),
        callsite_(std::move(callsite)),
        callsite_tag_(callsite_tag),
        function_name_(std::move(function_name)),
        callee_(std::move(callee)) {}

  // Absent when PyTorch did not know the module (printed as UNKNOWN_INSTANCE(UNKNOWN_TYPE)).
  const std::optional<ModuleInstance>& module_instance() const { return module_instance_; }
  // The call expression in the caller; unknown when its tag could not be resolved.
  const SourceRange& callsite() const { return callsite_; }
  // The serialized tag of the call site (kNoSourceRangeTag when PyTorch wrote none).
  std::int64_t callsite_tag() const { return callsite_tag_; }
  // Name of the function called at this site ("forward", "helper").
  const std::string& function_name() const { return function_name_; }
  // The next call, inside `function_name`, or null at the innermost call.
  const InlinedCallStackPtr& callee() const { return callee_; }

 private:
  std::optional<ModuleInstance> module_instance_;
  SourceRange callsite_;
  std::int64_t callsite_tag_;
  std::string function_name_;
  InlinedCallStackPtr callee_;
};

}  // namespace symbolite::debuginfo
