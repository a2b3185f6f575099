#include "symbolite/runtime/interpreter.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "symbolite/ops/registry/op_error.h"
#include "symbolite/profiler/event_sink.h"
#include "symbolite/runtime/delegate/custom_class.h"
#include "symbolite/runtime/delegate/delegate_backend.h"
#include "symbolite/runtime/profiled_op.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/support/error.h"

namespace symbolite::runtime {
namespace {

using mobile::OpCode;
using ops::IValue;
using ops::Stack;

constexpr std::size_t kMaxCallDepth = 256;
// Instructions between two looks at the clock and the cancel flag.
constexpr std::uint64_t kBudgetCheckInterval = 4096;
// SET_ATTR grows the attributes of an object `__setstate__` builds; no class has more.
constexpr std::size_t kMaxSlots = 1 << 16;

// PyTorch's ScalarType codes, which DTYPE pushes and `dtype=` arguments carry.
std::int64_t scalar_type_code(tensor::DType dtype) {
  switch (dtype) {
    case tensor::DType::kUInt8: return 0;
    case tensor::DType::kInt8: return 1;
    case tensor::DType::kInt16: return 2;
    case tensor::DType::kInt32: return 3;
    case tensor::DType::kInt64: return 4;
    case tensor::DType::kFloat16: return 5;
    case tensor::DType::kFloat32: return 6;
    case tensor::DType::kFloat64: return 7;
    case tensor::DType::kBool: return 11;
    case tensor::DType::kBFloat16: return 15;
  }
  return -1;
}

// TorchScript's `isinstance` against a type string from the bytecode's type table.
bool is_instance(const IValue& v, std::string_view type) {
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
        throw ops::OpError("IndexError", "tuple index out of range (format has more fields "
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

Interpreter::Interpreter(const mobile::LoadedModel& model) : model_(model) {
  if (model_.debug) symbolicator_.emplace(model_.debug);
  if (!model_.pending_setstate.empty()) {
    std::call_once(*model_.setstate_once, [this] { finish_objects(); });
  }
}

void Interpreter::finish_objects() {
  for (const auto& call : model_.pending_setstate) {
    const std::string name = call.object.to_object().type_name + ".__setstate__";
    auto it = model_.functions.find(name);
    if (it == model_.functions.end()) {
      throw Error(ErrorKind::kModel, fmt::format("{}: no function {}", model_.path, name));
    }
    Stack stack{call.object, call.state};
    run(it->second, stack, 0);
  }
}

IValue Interpreter::run_method(std::string_view name, std::vector<IValue> inputs) {
  const mobile::LoadedFunction* fn = model_.method(name);
  if (fn == nullptr) {
    std::string known;
    for (const auto& m : model_.method_names()) known += (known.empty() ? "" : ", ") + m;
    throw Error(ErrorKind::kNotFound,
                fmt::format("{} has no method '{}' (methods: {})", model_.top_type, name, known));
  }
  if (!fn->arguments.empty() && inputs.size() + 1 > fn->arguments.size()) {
    throw Error(ErrorKind::kUsage,
                fmt::format("{}() takes {} inputs, got {}", fn->short_name(),
                            fn->arguments.size() - 1, inputs.size()));
  }
  executed_ = 0;
  next_check_ = 0;  // the first instruction checks, and sets the next point
  started_ = std::chrono::steady_clock::now();
  Stack stack;
  stack.push_back(model_.root);
  for (auto& input : inputs) stack.push_back(std::move(input));
  // Missing trailing inputs take the schema's defaults, as in Python.
  for (std::size_t i = stack.size(); i < fn->arguments.size(); ++i) {
    stack.push_back(fn->arguments[i].default_value);
  }
  return run(*fn, stack, 0);
}

void Interpreter::fail(const mobile::LoadedFunction& fn, std::size_t pc, std::string python_class,
                       std::string message,
                       std::optional<debuginfo::DebugHandle> delegate_handle) const {
  RunErrorDetails d;
  d.python_class = std::move(python_class);
  d.message = std::move(message);
  d.function = fn.qualified_name;
  d.instruction = pc;
  d.model_id = to_hex(model_.model_id);
  if (pc < fn.debug_handles.size()) d.handle = fn.debug_handles[pc];
  d.delegate_handle = delegate_handle;
  if (d.handle && symbolicator_) {
    try {
      auto s = delegate_handle ? symbolicator_->symbolicate_delegated(*d.handle, *delegate_handle)
                               : symbolicator_->symbolicate(*d.handle);
      if (s.status != debuginfo::SymbolicationStatus::kNotFound) {
        d.module_hierarchy = std::move(s.module_hierarchy);
        d.traceback = std::move(s.traceback);
      }
    } catch (const Error& e) {
      // Debug records are decoded on the first failure (mobile/lazy_debug_source.h): damaged
      // ones must not hide the model's own error.
      d.debug_info_error = e.text();
    }
  }
  throw RunError(std::move(d));
}

void Interpreter::check_budget(const mobile::LoadedFunction& fn, std::size_t pc,
                               const Stack& stack) {
  if (budget_.max_instructions != 0 && executed_ > budget_.max_instructions) {
    fail(fn, pc, "RuntimeError",
         fmt::format("the run was stopped after {} instructions, its limit (--max-instructions)",
                     budget_.max_instructions));
  }
  if (budget_.cancel != nullptr && budget_.cancel->load(std::memory_order_relaxed)) {
    fail(fn, pc, "RuntimeError",
         fmt::format("the run was cancelled after {} instructions", executed_ - 1));
  }
  if (budget_.timeout.count() > 0) {
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started_);
    if (elapsed >= budget_.timeout) {
      fail(fn, pc, "RuntimeError",
           fmt::format("the run was stopped after {} ms and {} instructions, its time limit "
                       "(--timeout)", elapsed.count(), executed_ - 1));
    }
  }
  if (stack.size() > budget_.max_stack) {
    fail(fn, pc, "RuntimeError",
         fmt::format("the stack holds {} values, more than the limit of {}", stack.size(),
                     budget_.max_stack));
  }
  next_check_ = executed_ + kBudgetCheckInterval;
  if (budget_.max_instructions != 0) {
    next_check_ = std::min(next_check_, budget_.max_instructions + 1);
  }
}

IValue Interpreter::run(const mobile::LoadedFunction& fn, Stack& stack, std::size_t depth) {
  if (depth > kMaxCallDepth) {
    fail(fn, 0, "RuntimeError", fmt::format("calls nested deeper than {}", kMaxCallDepth));
  }
  std::vector<IValue> registers(fn.register_size + 1);  // registers are 1-based
  const auto& code = fn.instructions;
  std::size_t pc = 0;
  while (true) {
    if (++executed_ >= next_check_) check_budget(fn, pc, stack);
    const mobile::DecodedInstruction& ins = code[pc];
    try {
      switch (ins.op) {
        case OpCode::kOp:
        case OpCode::kOpN: {
          const auto& op = fn.operators[static_cast<std::size_t>(ins.x)];
          if (ins.op == OpCode::kOpN) stack.emplace_back(static_cast<std::int64_t>(ins.n));
          // Arguments the bytecode left out take the schema's defaults.
          const auto& defaults = op.def->defaults;
          std::size_t first_default = op.def->num_args - defaults.size();
          for (std::size_t i = op.num_specified_args; i < op.def->num_args; ++i) {
            stack.push_back(defaults[i - first_default]);
          }
          // Profiling costs a thread-local load and a branch when no sink is installed.
          if (profiler::EventSink* sink = profiler::current_sink()) {
            std::size_t num_inputs = ins.op == OpCode::kOpN ? static_cast<std::size_t>(ins.n) + 1
                                                            : op.def->num_args;
            run_profiled_op(op, num_inputs,
                            pc < fn.debug_handles.size() ? fn.debug_handles[pc]
                                                         : debuginfo::kInvalidDebugHandle,
                            stack, *sink);
          } else {
            op.def->kernel(stack);
          }
          ++pc;
          break;
        }
        case OpCode::kInterfaceCall: {
          const std::string& method = fn.constants[static_cast<std::size_t>(ins.x)].to_string();
          if (stack.size() < static_cast<std::size_t>(ins.n)) throw Error(ErrorKind::kModel, "stack underflow");
          const IValue& self = stack[stack.size() - static_cast<std::size_t>(ins.n)];
          if (std::shared_ptr<ops::NativeObject> native = self.to_object().native) {
            // A custom class (a delegate backend): C++ code, not bytecode.
            auto* custom = dynamic_cast<CustomClass*>(native.get());
            if (custom == nullptr || ins.n < 1) throw Error(ErrorKind::kInternal, "bad custom-class call");
            ops::IValueList args(std::make_move_iterator(stack.end() - ins.n + 1),
                                 std::make_move_iterator(stack.end()));
            ops::drop(stack, static_cast<std::size_t>(ins.n));
            // Profile events from inside the delegate name this call (profiled_op.h).
            DelegateCallScope scope(pc < fn.debug_handles.size() ? fn.debug_handles[pc]
                                                                 : debuginfo::kInvalidDebugHandle);
            IValue result = custom->call(method, args);
            stack.push_back(std::move(result));
            ++pc;
            break;
          }
          std::string qualified = self.to_object().type_name + "." + method;
          auto it = model_.functions.find(qualified);
          if (it == model_.functions.end()) {
            throw Error(ErrorKind::kModel, fmt::format("Couldn't find method {}", qualified));
          }
          stack.push_back(run(it->second, stack, depth + 1));
          ++pc;
          break;
        }
        case OpCode::kCreateObject: {
          auto object = std::make_shared<ops::Object>();
          object->type_name = fn.types[static_cast<std::size_t>(ins.x)];
          object->native = create_custom_class(object->type_name);
          stack.push_back(IValue::object(std::move(object)));
          ++pc;
          break;
        }
        case OpCode::kCall:
        case OpCode::kEnter:
        case OpCode::kExit:
          // The verifier refuses these at load (bytecode_verifier.cpp says why).
          throw Error(ErrorKind::kInternal,
                      fmt::format("instruction {} reached the interpreter", mobile::opcode_name(ins.op)));
        case OpCode::kLoad:
          stack.push_back(registers[static_cast<std::size_t>(ins.x)]);
          ++pc;
          break;
        case OpCode::kMove:
          stack.push_back(std::move(registers[static_cast<std::size_t>(ins.x)]));
          ++pc;
          break;
        case OpCode::kStore:
          registers[static_cast<std::size_t>(ins.x)] = ops::pop(stack);
          ++pc;
          break;
        case OpCode::kStoreN:
          for (std::int32_t i = ins.n; i > 0; --i) {
            registers[static_cast<std::size_t>(ins.x + i - 1)] = ops::pop(stack);
          }
          ++pc;
          break;
        case OpCode::kDrop:
          ops::pop(stack);
          ++pc;
          break;
        case OpCode::kDropR:
          registers[static_cast<std::size_t>(ins.x)] = IValue();
          ++pc;
          break;
        case OpCode::kLoadC:
          stack.push_back(fn.constants[static_cast<std::size_t>(ins.x)]);
          ++pc;
          break;
        case OpCode::kGetAttr: {
          IValue object = ops::pop(stack);
          auto& slots = object.to_object().slots;
          if (static_cast<std::size_t>(ins.x) >= slots.size()) {
            throw Error(ErrorKind::kModel,
                        fmt::format("attribute slot {} of a {} with {} attributes", ins.x,
                                    object.to_object().type_name, slots.size()));
          }
          stack.push_back(slots[static_cast<std::size_t>(ins.x)]);
          ++pc;
          break;
        }
        case OpCode::kSetAttr: {
          IValue value = ops::pop(stack);
          IValue object = ops::pop(stack);
          auto& slots = object.to_object().slots;
          // An object built by __setstate__ starts without attributes (as in PyTorch).
          if (object.to_object().slot_names.empty() && static_cast<std::size_t>(ins.x) < kMaxSlots &&
              static_cast<std::size_t>(ins.x) >= slots.size()) {
            slots.resize(static_cast<std::size_t>(ins.x) + 1);
          }
          if (static_cast<std::size_t>(ins.x) >= slots.size()) {
            throw Error(ErrorKind::kModel,
                        fmt::format("attribute slot {} of a {} with {} attributes", ins.x,
                                    object.to_object().type_name, slots.size()));
          }
          slots[static_cast<std::size_t>(ins.x)] = std::move(value);
          ++pc;
          break;
        }
        case OpCode::kJf:
          pc = ops::pop(stack).to_bool() ? pc + 1 : pc + static_cast<std::size_t>(ins.x);
          break;
        case OpCode::kJmp:
          pc += static_cast<std::size_t>(static_cast<std::ptrdiff_t>(ins.x));
          break;
        case OpCode::kLoop: {
          // Stack: trip count, max trip count, condition, then N - 2 loop-carried values.
          std::size_t n = static_cast<std::size_t>(ins.n);
          if (stack.size() < n + 1) throw Error(ErrorKind::kModel, "stack underflow in LOOP");
          IValue* frame = stack.data() + stack.size() - (n + 1);
          std::int64_t trip = frame[0].to_int();
          if (trip < frame[1].to_int() && frame[2].to_bool()) {
            frame[2] = IValue(trip);
            frame[0] = IValue(trip + 1);
            ++pc;
          } else {
            for (std::size_t i = 0; i + 2 < n; ++i) frame[i] = std::move(frame[i + 3]);
            ops::drop(stack, 3);
            pc += static_cast<std::size_t>(static_cast<std::ptrdiff_t>(ins.x));
          }
          break;
        }
        case OpCode::kRet:
          return ops::pop(stack);
        case OpCode::kWarn: {
          ops::pop(stack);  // stacklevel
          std::fprintf(stderr, "Warning: %s\n", ops::pop(stack).str().c_str());
          ++pc;
          break;
        }
        case OpCode::kListConstruct:
        case OpCode::kTupleConstruct:
        case OpCode::kNamedTupleConstruct: {
          std::size_t n = static_cast<std::size_t>(ins.op == OpCode::kTupleConstruct ? ins.x : ins.n);
          if (stack.size() < n) throw Error(ErrorKind::kModel, "stack underflow");
          ops::IValueList items(std::make_move_iterator(stack.end() - static_cast<std::ptrdiff_t>(n)),
                                std::make_move_iterator(stack.end()));
          ops::drop(stack, n);
          stack.push_back(ins.op == OpCode::kListConstruct ? IValue::list(std::move(items))
                                                           : IValue::tuple(std::move(items)));
          ++pc;
          break;
        }
        case OpCode::kListUnpack: {
          IValue list = ops::pop(stack);
          const auto& items = list.is(IValue::Kind::kTuple) ? list.to_tuple() : list.to_list();
          if (items.size() != static_cast<std::size_t>(ins.x)) {
            throw ops::OpError("ValueError",
                               fmt::format("Expected {} elements in a list but found {}", ins.x,
                                           items.size()));
          }
          for (const auto& item : items) stack.push_back(item);
          ++pc;
          break;
        }
        case OpCode::kTupleSlice: {
          IValue tuple = ops::pop(stack);
          const auto& items = tuple.to_tuple();
          std::size_t begin = static_cast<std::size_t>(ins.x);
          std::size_t end = begin + static_cast<std::size_t>(ins.n);
          if (end > items.size()) throw ops::OpError("IndexError", "tuple index out of range");
          stack.push_back(IValue::tuple(ops::IValueList(items.begin() + static_cast<std::ptrdiff_t>(begin),
                                                        items.begin() + static_cast<std::ptrdiff_t>(end))));
          ++pc;
          break;
        }
        case OpCode::kTupleIndex: {  // prim::TupleIndex: tuple[index], negative from the end
          std::int64_t index = ops::pop(stack).to_int();
          IValue tuple = ops::pop(stack);
          const auto& items = tuple.to_tuple();
          auto size = static_cast<std::int64_t>(items.size());
          if (index < 0) index += size;
          if (index < 0 || index >= size) {
            throw ops::OpError("IndexError", "Tuple list index out of range");
          }
          stack.push_back(items[static_cast<std::size_t>(index)]);
          ++pc;
          break;
        }
        case OpCode::kDictConstruct: {
          std::size_t n = static_cast<std::size_t>(ins.n);
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
          ++pc;
          break;
        }
        case OpCode::kDictIndex: {
          IValue key = ops::pop(stack);
          IValue dict = ops::pop(stack);
          auto at = dict.to_dict().find(key);
          // PyTorch's lite interpreter: RuntimeError "KeyError: zz" (the key as str()).
          if (at < 0) throw ops::OpError("RuntimeError", "KeyError: " + key.str());
          stack.push_back(dict.to_dict().items[static_cast<std::size_t>(at)].second);
          ++pc;
          break;
        }
        case OpCode::kIsInstance: {
          IValue v = ops::pop(stack);
          bool result = false;
          for (std::int32_t i = 0; i < ins.n; ++i) {
            result |= is_instance(v, fn.types[static_cast<std::size_t>(ins.x + i)]);
          }
          stack.emplace_back(result);
          ++pc;
          break;
        }
        case OpCode::kRaiseException: {
          // Stack: message, then the exception's qualified class name (or None).
          IValue cls = ops::pop(stack);
          IValue message = ops::pop(stack);
          throw ops::OpError(cls.is_none() ? "Exception" : cls.to_string(), message.str());
        }
        case OpCode::kIs:
        case OpCode::kIsNot: {
          IValue b = ops::pop(stack);
          IValue a = ops::pop(stack);
          bool same = (a.is_none() && b.is_none()) ||
                      (a.identity() != nullptr && a.identity() == b.identity()) ||
                      (a.identity() == nullptr && b.identity() == nullptr && !a.is_none() &&
                       !b.is_none() && a.kind() == b.kind() && ops::equal_scalars(a, b));
          stack.emplace_back(ins.op == OpCode::kIs ? same : !same);
          ++pc;
          break;
        }
        case OpCode::kNot:
          stack.emplace_back(!ops::pop(stack).to_bool());
          ++pc;
          break;
        case OpCode::kFormat: {
          std::size_t n = static_cast<std::size_t>(ins.x);
          if (n == 0 || stack.size() < n) throw Error(ErrorKind::kModel, "bad FORMAT");
          IValue* args = ops::last(stack, n);
          std::string text = format_string(args[0].to_string(), args + 1, n - 1);
          ops::drop(stack, n);
          stack.push_back(IValue::string(std::move(text)));
          ++pc;
          break;
        }
        case OpCode::kDevice:
          ops::pop(stack).to_tensor();
          stack.push_back(IValue::device("cpu"));
          ++pc;
          break;
        case OpCode::kDtype:
          stack.emplace_back(scalar_type_code(ops::pop(stack).to_tensor().dtype()));
          ++pc;
          break;
        case OpCode::kIsCuda:  // prim::is_cuda: symbolite runs on the CPU only
          ops::pop(stack).to_tensor();
          stack.emplace_back(false);
          ++pc;
          break;
        case OpCode::kDim:
          stack.emplace_back(ops::pop(stack).to_tensor().dim());
          ++pc;
          break;
        case OpCode::kUninitialized:
          stack.emplace_back();
          ++pc;
          break;
      }
    } catch (const RunError&) {
      throw;
    } catch (const DelegateFailure& e) {
      fail(fn, pc, e.python_class(), e.message(), e.handle());
    } catch (const ops::OpError& e) {
      fail(fn, pc, e.python_class(), e.message());
    } catch (const Error& e) {
      fail(fn, pc, e.kind() == ErrorKind::kUnsupported ? "NotImplementedError" : "RuntimeError",
           e.message());
    }
  }
}

}  // namespace symbolite::runtime
