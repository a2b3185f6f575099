#include "symbolite/runtime/interpreter.h"

#include <algorithm>
#include <new>

#include <fmt/format.h>

#include "symbolite/ops/registry/missing_operator.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/profiler/event_sink.h"
#include "symbolite/runtime/delegate/delegate_backend.h"
#include "symbolite/runtime/instruction_handlers.h"
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
  if (!fn->argument_defaults.empty() && inputs.size() + 1 > fn->argument_defaults.size()) {
    throw Error(ErrorKind::kUsage, fmt::format("{}() takes {} inputs, got {}", fn->short_name(),
                                               fn->argument_defaults.size() - 1, inputs.size()));
  }
  // A profile names each event's debug handle: the model's handle table is decoded before
  // the run, so a damaged one refuses the profile with its own error rather than failing an
  // instruction of the model.
  if (profiler::current_sink() != nullptr) fn->debug_handles();
  executed_ = 0;
  next_check_ = 0;  // the first instruction checks, and sets the next point
  started_ = std::chrono::steady_clock::now();
  Stack stack;
  stack.push_back(model_.root);
  for (auto& input : inputs) stack.push_back(std::move(input));
  // Missing trailing inputs take the schema's defaults, as in Python.
  for (std::size_t i = stack.size(); i < fn->argument_defaults.size(); ++i) {
    stack.push_back(fn->argument_defaults[i]);
  }
  return run(*fn, stack, 0, true);
}

void Interpreter::fail(const mobile::LoadedFunction& fn, std::size_t pc, std::string python_class,
                       std::string message,
                       std::optional<debuginfo::DebugHandle> delegate_handle) const {
  RunErrorDetails d;
  d.python_class = std::move(python_class);
  d.message = std::move(message);
  d.function = fn.qualified_name();
  d.instruction = pc;
  d.model_id = to_hex(model_.model_id());
  d.delegate_handle = delegate_handle;
  try {
    d.handle = fn.debug_handle(pc);
  } catch (const Error& e) {
    d.debug_info_error = e.text();  // a damaged handle table must not hide the model's error
  }
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
                       "(--timeout)",
                       elapsed.count(), executed_ - 1));
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

void Interpreter::interface_call(const mobile::LoadedFunction& fn, const mobile::Instruction& ins,
                                 Stack& stack, std::size_t pc, std::size_t depth) {
  if (instructions::call_custom_class(fn, stack, ins, pc)) return;
  const std::string& method = fn.constants[static_cast<std::size_t>(ins.x)].to_string();
  const IValue& self = stack[stack.size() - static_cast<std::size_t>(ins.n)];
  std::string qualified = self.to_object().type_name + "." + method;
  auto it = model_.functions.find(qualified);
  if (it == model_.functions.end()) {
    throw Error(ErrorKind::kModel, fmt::format("Couldn't find method {}", qualified));
  }
  stack.push_back(run(it->second, stack, depth + 1));
}

// The dispatch loop: one line per instruction, the work in instruction_handlers.h. Jumps pick
// the next instruction and `continue`; every other instruction falls through to `++pc`. Any
// failure is reported at the instruction that raised it (pc is not advanced before).
IValue Interpreter::run(const mobile::LoadedFunction& fn, Stack& stack, std::size_t depth,
                        bool root_self) {
  using namespace instructions;  // NOLINT(google-build-using-namespace): handler names only
  if (depth > kMaxCallDepth) {
    fail(fn, 0, "RuntimeError", fmt::format("calls nested deeper than {}", kMaxCallDepth));
  }
  Frame frame(fn, stack);
  // Fused operators (mobile/operator_fusion.h) unless profiling, which times each on its own
  // unless asked for the code as it runs.
  const profiler::EventSink* sink = profiler::current_sink();
  const bool fused = !fn.fused_instructions.empty() && (root_self || !fn.fused_assumes_root) &&
                     (sink == nullptr || (sink->details() & profiler::kDetailAsRun) != 0);
  const auto& code = fused ? fn.fused_instructions : fn.instructions();
  std::size_t pc = 0;
  while (true) {
    if (++executed_ >= next_check_) check_budget(fn, pc, stack);
    const mobile::Instruction& ins = code[pc];
    try {
      switch (ins.op) {
        case OpCode::kOp:
        case OpCode::kOpN:
          run_operator(frame, ins, pc);
          break;
        case OpCode::kLoad:
          load_register(frame, ins);
          break;
        case OpCode::kMove:
          move_register(frame, ins);
          break;
        case OpCode::kStore:
          store_register(frame, ins);
          break;
        case OpCode::kStoreN:
          store_registers(frame, ins);
          break;
        case OpCode::kDrop:
          drop_value(frame);
          break;
        case OpCode::kDropR:
          drop_register(frame, ins);
          break;
        case OpCode::kLoadC:
          load_constant(frame, ins);
          break;
        case OpCode::kJf:
          pc = jump_if_false(frame, ins, pc);
          continue;
        case OpCode::kJmp:
          pc = jump(ins, pc);
          continue;
        case OpCode::kLoop:
          pc = loop(frame, ins, pc);
          continue;
        case OpCode::kRet:
          return ops::pop(stack);
        case OpCode::kInterfaceCall:
          interface_call(fn, ins, stack, pc, depth);
          break;
        case OpCode::kGetAttr:
          get_attr(frame, ins);
          break;
        case OpCode::kSetAttr:
          set_attr(stack, ins);
          break;
        case OpCode::kCreateObject:
          create_object(fn, stack, ins);
          break;
        case OpCode::kListConstruct:
        case OpCode::kTupleConstruct:
        case OpCode::kNamedTupleConstruct:
          construct_sequence(frame, ins);
          break;
        case OpCode::kListUnpack:
          list_unpack(stack, ins);
          break;
        case OpCode::kTupleSlice:
          tuple_slice(stack, ins);
          break;
        case OpCode::kTupleIndex:
          tuple_index(stack);
          break;
        case OpCode::kDictConstruct:
          dict_construct(stack, ins);
          break;
        case OpCode::kDictIndex:
          dict_index(stack);
          break;
        case OpCode::kIsInstance:
          is_instance(fn, stack, ins);
          break;
        case OpCode::kIs:
        case OpCode::kIsNot:
          is_same(stack, ins);
          break;
        case OpCode::kNot:
          logical_not(stack);
          break;
        case OpCode::kFormat:
          format_text(stack, ins);
          break;
        case OpCode::kDevice:
          tensor_device(stack);
          break;
        case OpCode::kDtype:
          tensor_dtype(stack);
          break;
        case OpCode::kIsCuda:
          tensor_is_cuda(stack);
          break;
        case OpCode::kDim:
          tensor_dim(stack);
          break;
        case OpCode::kToList:
          tensor_tolist(stack);
          break;
        case OpCode::kNumToTensor:
          number_to_tensor(stack);
          break;
        case OpCode::kUninitialized:
          push_uninitialized(stack);
          break;
        case OpCode::kWarn:
          warn(stack);
          break;
        case OpCode::kRaiseException:
          raise_exception(stack);
        case OpCode::kCall:
        case OpCode::kEnter:
        case OpCode::kExit:
          unreachable(ins);
      }
      ++pc;
    } catch (const RunError&) {
      throw;
    } catch (const DelegateFailure& e) {
      fail(fn, pc, e.python_class(), e.message(), e.handle());
    } catch (const ops::OpError& e) {
      fail(fn, pc, e.python_class(), e.message());
    } catch (const ops::MissingOperatorCalled& e) {  // only OP and OP_N run kernels
      const bool op = ins.op == OpCode::kOp || ins.op == OpCode::kOpN;
      fail(fn, pc, "NotImplementedError",
           op ? ops::missing_operator_message(fn.operators[static_cast<std::size_t>(ins.x)].name)
              : e.message());
    } catch (const Error& e) {
      fail(fn, pc, e.kind() == ErrorKind::kUnsupported ? "NotImplementedError" : "RuntimeError",
           e.message());
    } catch (const std::bad_alloc&) {
      // A kernel's own working memory (tensors say how large they are, Tensor::uninitialized).
      fail(fn, pc, "RuntimeError", "can't allocate memory for the operator's working data");
    }
  }
}

}  // namespace symbolite::runtime
