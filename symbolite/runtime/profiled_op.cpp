#include "symbolite/runtime/profiled_op.h"

#include "symbolite/profiler/flops.h"
#include "symbolite/tensor/buffer_pool.h"

namespace symbolite::runtime {
namespace {

// The element type of a homogeneous list, as PyTorch's profiler names list inputs.
std::string_view list_type(const ops::IValueList& items) {
  using K = ops::IValue::Kind;
  if (items.empty()) return "list";
  K kind = items.front().kind();
  for (const auto& item : items) {
    if (item.kind() != kind) return "list";
  }
  switch (kind) {
    case K::kInt:
      return "int[]";
    case K::kDouble:
      return "float[]";
    case K::kBool:
      return "bool[]";
    case K::kTensor:
      return "Tensor[]";
    default:
      return "list";
  }
}

// How the profiler describes a value: a tensor's dtype and sizes, else its kind.
profiler::ValueMeta value_meta(const ops::IValue& value) {
  using K = ops::IValue::Kind;
  profiler::ValueMeta meta;
  switch (value.kind()) {
    case K::kTensor: {
      const auto& t = value.to_tensor();
      meta.type = tensor::torch_name(t.dtype()).substr(6);  // "float32" of "torch.float32"
      meta.sizes.assign(t.sizes().begin(), t.sizes().end());
      meta.is_tensor = true;
      break;
    }
    case K::kNone:
      meta.type = "None";
      break;
    case K::kBool:
      meta.type = "bool";
      break;
    case K::kInt:
      meta.type = "int";
      break;
    case K::kDouble:
      meta.type = "float";
      break;
    case K::kString:
      meta.type = "str";
      break;
    case K::kList:
      meta.type = list_type(value.to_list());
      break;
    case K::kTuple:
      meta.type = "tuple";
      break;
    case K::kDict:
      meta.type = "dict";
      break;
    case K::kObject:
      meta.type = "object";
      break;
    case K::kDevice:
      meta.type = "Device";
      break;
  }
  return meta;
}

thread_local debuginfo::DebugHandle current_delegate_call = debuginfo::kInvalidDebugHandle;

}  // namespace

DelegateCallScope::DelegateCallScope(debuginfo::DebugHandle call)
    : previous_(current_delegate_call) {
  current_delegate_call = call;
}

DelegateCallScope::~DelegateCallScope() { current_delegate_call = previous_; }

debuginfo::DebugHandle DelegateCallScope::current() { return current_delegate_call; }

void run_profiled_op(const mobile::ResolvedOperator& op, std::size_t num_inputs,
                     debuginfo::DebugHandle handle, ops::Stack& stack, profiler::EventSink& sink,
                     std::uint32_t source, const std::function<void(ops::Stack&)>& body) {
  const std::uint32_t details = sink.details();
  const bool shapes = (details & (profiler::kDetailShapes | profiler::kDetailFlops)) != 0;
  profiler::OpEvent event;
  event.op = op.fused_name.empty() ? op.name : op.fused_name;
  event.handle = handle;
  event.source = source;
  if (source != 0) event.delegate_call = current_delegate_call;
  event.thread = profiler::thread_id();
  std::size_t below = stack.size() - num_inputs;  // what the kernel leaves untouched
  if (shapes) {
    event.inputs.reserve(num_inputs);
    for (std::size_t i = below; i < stack.size(); ++i) event.inputs.push_back(value_meta(stack[i]));
  }
  tensor::AllocationCounts before;
  if (details & profiler::kDetailMemory) before = tensor::thread_allocation_counts();

  event.start_ns = profiler::now_ns();
  if (body) {
    body(stack);
  } else {
    op.def->kernel(stack);
  }
  event.end_ns = profiler::now_ns();

  if (details & profiler::kDetailMemory) {
    tensor::AllocationCounts after = tensor::thread_allocation_counts();
    event.bytes_allocated = after.allocated - before.allocated;
    event.bytes_freed = after.freed - before.freed;
  }
  if (shapes) {
    for (std::size_t i = below; i < stack.size(); ++i)
      event.outputs.push_back(value_meta(stack[i]));
  }
  if (details & profiler::kDetailFlops) {
    event.flops = profiler::estimate_flops(op.name, event.inputs, event.outputs);
  }
  if (!(details & profiler::kDetailShapes)) {
    event.inputs.clear();
    event.outputs.clear();
  }
  sink.on_op(event);
}

}  // namespace symbolite::runtime
