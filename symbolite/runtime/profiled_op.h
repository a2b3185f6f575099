// Runs one resolved operator under a profiler sink: times it and, as the sink asks
// (`EventSink::details()`), records its input and output shapes, its FLOPs and the tensor
// bytes it allocated and freed, then reports the event. The interpreter calls this only when
// a sink is installed; without one it calls the kernel directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/profiler/event_sink.h"

namespace symbolite::runtime {

// While a delegate's `execute` runs on this thread, the handle of the instruction that called
// it: events from inside the delegate carry it (OpEvent::delegate_call).
class DelegateCallScope {
 public:
  explicit DelegateCallScope(debuginfo::DebugHandle call);
  ~DelegateCallScope();
  DelegateCallScope(const DelegateCallScope&) = delete;
  DelegateCallScope& operator=(const DelegateCallScope&) = delete;
  static debuginfo::DebugHandle current();

 private:
  debuginfo::DebugHandle previous_;
};

// The operator's `num_inputs` arguments are the top of `stack` (defaults already pushed);
// the kernel pops them and pushes its results, as when it runs unprofiled. A kernel that
// throws reports no event. `source`: OpEvent::source (0 for the interpreter's own operators).
// `body`, when given, runs instead of the operator's kernel (a delegate's own implementation
// of the node), under the same calling convention.
void run_profiled_op(const mobile::ResolvedOperator& op, std::size_t num_inputs,
                     debuginfo::DebugHandle handle, ops::Stack& stack, profiler::EventSink& sink,
                     std::uint32_t source = 0, const std::function<void(ops::Stack&)>& body = {});

}  // namespace symbolite::runtime
