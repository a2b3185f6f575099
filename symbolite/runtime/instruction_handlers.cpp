// The out-of-line instruction handlers: rarer or bulkier than those inline in the header.
#include "symbolite/runtime/instruction_handlers.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "symbolite/ops/kernels/conv_max_pool.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/runtime/delegate/custom_class.h"
#include "symbolite/runtime/tensor_to_list.h"

namespace symbolite::runtime::instructions {
namespace {

// SET_ATTR grows the attributes of an object `__setstate__` builds; no class has more.
constexpr std::size_t kMaxSlots = 1 << 16;

// PyTorch's ScalarType codes, which DTYPE pushes and `dtype=` arguments carry.
std::int64_t scalar_type_code(tensor::DType dtype) {
  switch (dtype) {
    case tensor::DType::kUInt8:
      return 0;
    case tensor::DType::kInt8:
      return 1;
    case tensor::DType::kInt16:
      return 2;
    case tensor::DType::kInt32:
      return 3;
    case tensor::DType::kInt64:
      return 4;
    case tensor::DType::kFloat16:
      return 5;
    case tensor::DType::kFloat32:
      return 6;
    case tensor::DType::kFloat64:
      return 7;
    case tensor::DType::kBool:
      return 11;
    case tensor::DType::kBFloat16:
      return 15;
  }
  return -1;
}

// TorchScript's `isinstance` against a type string from the bytecode's type table.
bool is_instance_of(const IValue& v, std::string_view type) {
  using K = IValue::Kind;
  if (type == "Tensor") return v.is(K::kTensor);
  if (type == "int") return v.is(K::kInt);
  if (type == "float") return v.is(K::kDouble);
  if (type == "bool") return v.is(K::kBool);
  if (type == "str") return v.is(K::kString);
  if (type == "NoneType") return v.is_none();
  if (type.starts_with("List[")) return v.is(K::kList);
  if (type.starts_with("Tuple[")) return v.is(K::kTuple);
  if (type.starts_with("Dict[")) return v.is(K::kDict);
  if (v.is(K::kObject)) return v.to_object().type_name == type;
  return false;
}

// Python's str.format for the "{}" fields TorchScript emits.
std::string format_string(const std::string& format, const IValue* args, std::size_t n) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '{' && i + 1 < format.size() && format[i + 1] == '}') {
      if (next >= n) {
        throw ops::OpError("IndexError",
                           "tuple index out of range (format has more fields "
                           "than arguments)");
      }
      out += args[next++].str();
      ++i;
    } else {
      out += format[i];
    }
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- objects

void operator_stack_underflow(const mobile::ResolvedOperator& op, std::size_t passed,
                              std::size_t on_stack) {
  throw Error(
      ErrorKind::kModel,
      fmt::format("stack underflow: the bytecode passes {} {} argument{}, the stack "
                  "holds {} value{}",
                  op.name, passed, passed == 1 ? "" : "s", on_stack, on_stack == 1 ? "" : "s"));
}

void bad_attribute_slot(const Instruction& ins, const ops::Object& object) {
  throw Error(ErrorKind::kModel, fmt::format("attribute slot {} of a {} with {} attributes", ins.x,
                                             object.type_name, object.slots.size()));
}

void set_attr(Stack& stack, const Instruction& ins) {
  IValue value = ops::pop(stack);
  IValue object = ops::pop(stack);
  auto& slots = object.to_object().slots;
  // An object built by __setstate__ starts without attributes (as in PyTorch).
  if (object.to_object().slot_names.empty() && as_index(ins.x) < kMaxSlots &&
      as_index(ins.x) >= slots.size()) {
    slots.resize(as_index(ins.x) + 1);
  }
  if (as_index(ins.x) >= slots.size()) bad_attribute_slot(ins, object.to_object());
  slots[as_index(ins.x)] = std::move(value);
}

void create_object(const mobile::LoadedFunction& fn, Stack& stack, const Instruction& ins) {
  auto object = std::make_shared<ops::Object>();
  object->type_name = fn.code->types[as_index(ins.x)];
  object->native = create_custom_class(object->type_name);
  stack.push_back(IValue::object(std::move(object)));
}

bool call_custom_class(const mobile::LoadedFunction& fn, Stack& stack, const Instruction& ins,
                       std::size_t pc) {
  const std::string& method = fn.constants[as_index(ins.x)].to_string();
  if (stack.size() < as_index(ins.n)) throw Error(ErrorKind::kModel, "stack underflow");
  const IValue& self = stack[stack.size() - as_index(ins.n)];
  std::shared_ptr<ops::NativeObject> native = self.to_object().native;
  if (!native) return false;
  auto* custom = dynamic_cast<CustomClass*>(native.get());
  if (custom == nullptr || ins.n < 1) throw Error(ErrorKind::kInternal, "bad custom-class call");
  ops::IValueList args(std::make_move_iterator(stack.end() - ins.n + 1),
                       std::make_move_iterator(stack.end()));
  ops::drop(stack, as_index(ins.n));
  // Profile events from inside the delegate name this call (profiled_op.h); an unprofiled
  // run needs no handle and leaves the table undecoded.
  DelegateCallScope scope(profiler::current_sink() != nullptr ? handle_at(fn, pc)
                                                              : debuginfo::kInvalidDebugHandle);
  IValue result = custom->call(method, args);
  stack.push_back(std::move(result));
  return true;
}

// ---------------------------------------------------------------- containers

void list_unpack(Stack& stack, const Instruction& ins) {
  IValue list = ops::pop(stack);
  const auto& items = list.is(IValue::Kind::kTuple) ? list.to_tuple() : list.to_list();
  if (items.size() != as_index(ins.x)) {
    throw ops::OpError("ValueError", fmt::format("Expected {} elements in a list but found {}",
                                                 ins.x, items.size()));
  }
  for (const auto& item : items) stack.push_back(item);
}

void tuple_slice(Stack& stack, const Instruction& ins) {
  IValue tuple = ops::pop(stack);
  const auto& items = tuple.to_tuple();
  std::size_t begin = as_index(ins.x);
  std::size_t end = begin + as_index(ins.n);
  if (end > items.size()) throw ops::OpError("IndexError", "tuple index out of range");
  stack.push_back(IValue::tuple(ops::IValueList(items.begin() + static_cast<std::ptrdiff_t>(begin),
                                                items.begin() + static_cast<std::ptrdiff_t>(end))));
}

// prim::TupleIndex: tuple[index], negative from the end.
void tuple_index(Stack& stack) {
  std::int64_t index = ops::pop(stack).to_int();
  IValue tuple = ops::pop(stack);
  const auto& items = tuple.to_tuple();
  auto size = static_cast<std::int64_t>(items.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) throw ops::OpError("IndexError", "Tuple list index out of range");
  stack.push_back(items[static_cast<std::size_t>(index)]);
}

// DICT_CONSTRUCT N: N/2 key-value pairs; a repeated key keeps its first place, the last value.
void dict_construct(Stack& stack, const Instruction& ins) {
  std::size_t n = as_index(ins.n);
  if (n % 2 != 0 || stack.size() < n) throw Error(ErrorKind::kModel, "bad DICT_CONSTRUCT");
  auto dict = std::make_shared<ops::Dict>();
  IValue* args = ops::last(stack, n);
  for (std::size_t i = 0; i < n; i += 2) {
    auto at = dict->find(args[i]);
    if (at >= 0) {
      dict->items[static_cast<std::size_t>(at)].second = args[i + 1];
    } else {
      dict->items.emplace_back(args[i], args[i + 1]);
    }
  }
  ops::drop(stack, n);
  stack.push_back(IValue::dict(std::move(dict)));
}

void dict_index(Stack& stack) {
  IValue key = ops::pop(stack);
  IValue dict = ops::pop(stack);
  auto at = dict.to_dict().find(key);
  // PyTorch's lite interpreter: RuntimeError "KeyError: zz" (the key as str()).
  if (at < 0) throw ops::OpError("RuntimeError", "KeyError: " + key.str());
  stack.push_back(dict.to_dict().items[static_cast<std::size_t>(at)].second);
}

// ---------------------------------------------------------------- types and values

// ISINSTANCE X N: whether the value is of any of the types X .. X+N-1.
void is_instance(const mobile::LoadedFunction& fn, Stack& stack, const Instruction& ins) {
  IValue v = ops::pop(stack);
  bool result = false;
  for (std::int32_t i = 0; i < ins.n; ++i) {
    result |= is_instance_of(v, fn.code->types[as_index(ins.x + i)]);
  }
  stack.emplace_back(result);
}

// Python's `is`: the same container or object, both None, or equal scalars of one kind.
void is_same(Stack& stack, const Instruction& ins) {
  IValue b = ops::pop(stack);
  IValue a = ops::pop(stack);
  bool same = (a.is_none() && b.is_none()) ||
              (a.identity() != nullptr && a.identity() == b.identity()) ||
              (a.identity() == nullptr && b.identity() == nullptr && !a.is_none() && !b.is_none() &&
               a.kind() == b.kind() && ops::equal_scalars(a, b));
  stack.emplace_back(ins.op == mobile::OpCode::kIs ? same : !same);
}

void logical_not(Stack& stack) { stack.emplace_back(!ops::pop(stack).to_bool()); }

// FORMAT X: the format string, then its X - 1 arguments.
void format_text(Stack& stack, const Instruction& ins) {
  std::size_t n = as_index(ins.x);
  if (n == 0 || stack.size() < n) throw Error(ErrorKind::kModel, "bad FORMAT");
  IValue* args = ops::last(stack, n);
  std::string text = format_string(args[0].to_string(), args + 1, n - 1);
  ops::drop(stack, n);
  stack.push_back(IValue::string(std::move(text)));
}

void tensor_device(Stack& stack) {
  ops::pop(stack).to_tensor();
  stack.push_back(IValue::device("cpu"));
}

void tensor_dtype(Stack& stack) {
  stack.emplace_back(scalar_type_code(ops::pop(stack).to_tensor().dtype()));
}

// prim::is_cuda: symbolite runs on the CPU only.
void tensor_is_cuda(Stack& stack) {
  ops::pop(stack).to_tensor();
  stack.emplace_back(false);
}

void tensor_dim(Stack& stack) { stack.emplace_back(ops::pop(stack).to_tensor().dim()); }

// NUM_TO_TENSOR (traced models' prim::NumToTensor): the number as a 0-dim tensor of its own
// dtype (int: Long, float: Double, bool: Bool), as the operator computes it.
void number_to_tensor(Stack& stack) {
  static const ops::Kernel kernel =
      ops::default_registry().find("prim::NumToTensor.Scalar")->kernel;
  kernel(stack);
}

// TO_LIST: the tensor, the annotation's list depth and element type (tensor_to_list.h).
void tensor_tolist(Stack& stack) {
  std::int64_t element_type = ops::pop(stack).to_int();
  std::int64_t dim = ops::pop(stack).to_int();
  IValue t = ops::pop(stack);
  stack.push_back(tensor_to_list(t.to_tensor(), dim, element_type));
}

void push_uninitialized(Stack& stack) { stack.emplace_back(); }

// ---------------------------------------------------------------- exceptions and warnings

// Stack: message, then the exception's qualified class name (or None).
void raise_exception(Stack& stack) {
  IValue cls = ops::pop(stack);
  IValue message = ops::pop(stack);
  throw ops::OpError(cls.is_none() ? "Exception" : cls.to_string(), message.str());
}

void warn(Stack& stack) {
  ops::pop(stack);  // stacklevel
  std::fprintf(stderr, "Warning: %s\n", ops::pop(stack).str().c_str());
}

void unreachable(const Instruction& ins) {
  throw Error(ErrorKind::kInternal,
              fmt::format("instruction {} reached the interpreter", mobile::opcode_name(ins.op)));
}

// Fused code runs without a profiler or under one that asked for the code as it runs
// (kDetailAsRun; interpreter.cpp), as does a run a delegate or a callback installed a sink in:
// a fused operator is one event under its fused_name, a folded batch norm none.
namespace {

// The activation a fused operator took over, on the value on top of the stack, where its
// kernel could not apply it.
void run_activation(const mobile::ResolvedOperator& op, Stack& stack) {
  for (const auto& arg : op.activation_args) stack.push_back(arg);
  op.activation_def->kernel(stack);
}

}  // namespace

void run_fused_operator(Frame& f, const mobile::ResolvedOperator& op, std::size_t pc) {
  if (op.taken_by_producer) {  // a chained max_pool2d
    auto it = std::find(f.unfolded.begin(), f.unfolded.end(), pc);
    if (it == f.unfolded.end()) {  // its convolution ran it: return the input (no event)
      ops::drop(f.stack, op.def->num_args - 1);
      return;
    }
    f.unfolded.erase(it);
    const mobile::ResolvedOperator& alone = *op.alone;  // the pool as the file has it
    if (profiler::EventSink* sink = profiler::current_sink()) {
      run_profiled_op(alone, alone.def->num_args, handle_at(f.fn, pc), f.stack, *sink);
    } else {
      alone.def->kernel(f.stack);
    }
    return;
  }
  std::optional<ops::nn::MaxPoolChain> pool_chain;
  if (op.then_pool != nullptr) {
    pool_chain = ops::nn::max_pool_chain(f.stack, *op.then_pool);
    if (!pool_chain) {  // the two apart
      f.unfolded.push_back(op.pool_pc);
      return run_fused_operator(f, *op.alone, pc);
    }
  }
  if (op.folded_away) {
    auto it = std::find(f.unfolded.begin(), f.unfolded.end(), pc);
    if (it == f.unfolded.end()) {  // the convolution applied it: return the input (no event)
      ops::drop(f.stack, op.def->num_args - 1);
      return;
    }
    f.unfolded.erase(it);
  }
  // The epilogue kernel; a chained cat's convolution writes into its part of the cat's buffer.
  auto with_epilogue = [&f, &op](Stack& stack) {
    if (op.cat_plan == nullptr) return op.epilogue_kernel(stack, *op.epilogue);
    const ops::OutputAllocator part = [&f, &op](const std::vector<std::int64_t>& sizes,
                                                tensor::DType dtype) {
      return cat_part(f.pending_cats, *op.cat_plan, op.cat_item, sizes, dtype);
    };
    return ops::nn::conv2d_with_epilogue_into(stack, *op.epilogue, part);
  };
  auto run = [&f, &op, &with_epilogue, &pool_chain](Stack& stack) {
    if (pool_chain) {
      ops::nn::conv2d_then_max_pool(stack, *op.epilogue, *pool_chain);
      return;
    }
    if (op.gathers_cat) {
      run_cat_in_place(f.pending_cats, op, stack);
      return;
    }
    if (op.folded_away) {  // its convolution ran as written
      op.def->kernel(stack);
      if (op.activation_def != nullptr) run_activation(op, stack);
      return;
    }
    if (!op.epilogue->scale.empty()) {  // a convolution with its batch norm folded in
      const IValue& input = ops::last(stack, op.def->num_args)[0];
      const bool batched = input.is(IValue::Kind::kTensor) && input.to_tensor().dim() == 4;
      if (batched && with_epilogue(stack)) return;
      // Unbatched, its batch norm's channels are the output's rows; or the epilogue could not
      // be applied (an empty output). The convolution as written, and the batch norm at its
      // own instruction.
      if (!batched) op.def->kernel(stack);
      f.unfolded.push_back(op.batch_norm_pc);
      return;
    }
    if (!with_epilogue(stack)) run_activation(op, stack);
  };
  if (profiler::EventSink* sink = profiler::current_sink()) {
    run_profiled_op(op, op.def->num_args, handle_at(f.fn, pc), f.stack, *sink, 0, run);
  } else {
    run(f.stack);
  }
}

}  // namespace symbolite::runtime::instructions
