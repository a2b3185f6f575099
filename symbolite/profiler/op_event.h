// One operator execution as the profiler sees it: which operator, which debug handle (and
// so, through the debug info, which module and source line), when, on which thread — and,
// when the sink asks for them (`EventSink::details()`), the operator's input and output
// shapes and dtypes, its FLOPs, and the tensor bytes it allocated and freed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/debuginfo/debug_info.h"

namespace symbolite::profiler {

// What a sink asks the runtime to measure besides time; each costs something per event.
enum EventDetail : std::uint32_t {
  kDetailShapes = 1u << 0,  // input and output shapes and dtypes
  kDetailFlops = 1u << 1,   // floating-point operations (needs the shapes, drops them after)
  kDetailMemory = 1u << 2,  // tensor bytes allocated and freed while the operator ran
  kDetailAll = kDetailShapes | kDetailFlops | kDetailMemory,
  // Not a measurement: profile the code as it runs unprofiled, operator fusion's
  // (mobile/operator_fusion.h) fused operators one event each, under their `fused_name`.
  // Without it, profiled runs take the file's code, every operator timed on its own.
  kDetailAsRun = 1u << 3,
};

// One operator input or output.
struct ValueMeta {
  std::string_view type;            // "float32" for a tensor (its dtype), else "int", "float",
                                    // "bool", "str", "None", "int[]", "Tensor[]", "tuple", ...
  std::vector<std::int64_t> sizes;  // a tensor's sizes (empty for other values)
  bool is_tensor = false;
};

struct OpEvent {
  std::string_view op;  // "aten::conv2d" (overload included when it has one); the name must
                        // outlive the sink (operator names live in the loaded model)
  debuginfo::DebugHandle handle = debuginfo::kInvalidDebugHandle;
  std::int64_t start_ns = 0;  // steady clock
  std::int64_t end_ns = 0;
  std::uint32_t thread = 0;
  std::uint32_t source = 0;  // 0 = the interpreter; delegate backends use their own ids
  // For an event from inside a delegate: the handle of the instruction that called the
  // delegate's `execute`; with `handle` (the delegate node's) it composes the full module path
  // through the lowered module.
  debuginfo::DebugHandle delegate_call = debuginfo::kInvalidDebugHandle;

  // Filled only when the sink asked for them (see EventDetail).
  std::vector<ValueMeta> inputs{};   // kDetailShapes: in schema order, defaults included
  std::vector<ValueMeta> outputs{};  // kDetailShapes
  std::int64_t flops = -1;           // kDetailFlops: -1 when the operator has no formula
  std::int64_t bytes_allocated = 0;  // kDetailMemory: tensor buffers taken while it ran
  std::int64_t bytes_freed = 0;      // kDetailMemory: tensor buffers released while it ran
};

}  // namespace symbolite::profiler
