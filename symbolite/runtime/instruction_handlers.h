// What each bytecode instruction does, one handler per instruction (or per group that shares
// its code), for Interpreter::run's dispatch loop. Operands were verified at load
// (mobile/bytecode_verifier.h), so handlers index tables without checks.
//
// The loop runs for every instruction of every model, so the handlers it runs most (registers,
// jumps, operators, attributes, list and tuple building) are inline here, and forced inline
// (GCC otherwise calls `run_operator` and `loop` out of line): the loop's switch compiles to
// one jump table with their bodies in place, as the single switch did. The rest, rarer or
// bulkier, are out of line in instruction_handlers.cpp. Handlers never touch the program
// counter; jumps return the next one. A handler throws on failure (ops::OpError with the
// Python class, or Error) and the loop reports it at the failing instruction.
#pragma once

#include <cstdint>
#include <iterator>
#include <vector>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/profiler/event_sink.h"
#include "symbolite/runtime/cat_in_place.h"
#include "symbolite/runtime/profiled_op.h"
#include "symbolite/support/error.h"

namespace symbolite::runtime::instructions {

using mobile::Instruction;
using ops::IValue;
using ops::Stack;

// The state of one running bytecode function that handlers work on: its tables, the value
// stack it shares with its callers, and its registers. The program counter stays in the loop.
struct Frame {
  Frame(const mobile::LoadedFunction& function, Stack& values)
      : fn(function), stack(values), registers(function.register_size + 1) {}

  const mobile::LoadedFunction& fn;
  Stack& stack;
  std::vector<IValue> registers;  // 1-based, as the bytecode numbers them
  // Instructions of folded batch norms whose convolution ran unfolded, and of chained max
  // pools whose convolution ran alone (run_fused_operator).
  std::vector<std::size_t> unfolded;
  // Buffers of chained cats being written (cat_in_place.h).
  std::vector<PendingCat> pending_cats;
};

inline std::size_t as_index(std::int32_t operand) { return static_cast<std::size_t>(operand); }

// The debug handle of instruction `pc`, for profile events. A profiled run decoded the
// handle table before it started (Interpreter::run_method), so this only reads it.
inline debuginfo::DebugHandle handle_at(const mobile::LoadedFunction& fn, std::size_t pc) {
  return fn.debug_handle(pc).value_or(debuginfo::kInvalidDebugHandle);
}

// ---------------------------------------------------------------- registers and constants

[[gnu::always_inline]] inline void load_register(Frame& f, const Instruction& ins) {
  f.stack.push_back(f.registers[as_index(ins.x)]);
}
[[gnu::always_inline]] inline void move_register(Frame& f, const Instruction& ins) {
  f.stack.push_back(std::move(f.registers[as_index(ins.x)]));
}
[[gnu::always_inline]] inline void store_register(Frame& f, const Instruction& ins) {
  f.registers[as_index(ins.x)] = ops::pop(f.stack);
}
// STOREN: the top N values into registers X .. X+N-1, the topmost into the last.
[[gnu::always_inline]] inline void store_registers(Frame& f, const Instruction& ins) {
  for (std::int32_t i = ins.n; i > 0; --i) f.registers[as_index(ins.x + i - 1)] = ops::pop(f.stack);
}
[[gnu::always_inline]] inline void drop_value(Frame& f) { ops::pop(f.stack); }
[[gnu::always_inline]] inline void drop_register(Frame& f, const Instruction& ins) {
  f.registers[as_index(ins.x)] = IValue();
}
[[gnu::always_inline]] inline void load_constant(Frame& f, const Instruction& ins) {
  f.stack.push_back(f.fn.constants[as_index(ins.x)]);
}

// ---------------------------------------------------------------- control flow (next pc)

[[gnu::always_inline]] inline std::size_t jump_if_false(Frame& f, const Instruction& ins,
                                                        std::size_t pc) {
  return ops::pop(f.stack).to_bool() ? pc + 1 : pc + as_index(ins.x);
}
[[gnu::always_inline]] inline std::size_t jump(const Instruction& ins, std::size_t pc) {
  return pc + static_cast<std::size_t>(static_cast<std::ptrdiff_t>(ins.x));
}
// LOOP N: stack holds trip count, max trip count, condition, then N - 2 loop-carried values.
// Another iteration goes on to the body; the last one drops the three counters and jumps X.
[[gnu::always_inline]] inline std::size_t loop(Frame& f, const Instruction& ins, std::size_t pc) {
  std::size_t n = as_index(ins.n);
  if (f.stack.size() < n + 1) throw Error(ErrorKind::kModel, "stack underflow in LOOP");
  IValue* values = f.stack.data() + f.stack.size() - (n + 1);
  std::int64_t trip = values[0].to_int();
  if (trip < values[1].to_int() && values[2].to_bool()) {
    values[2] = IValue(trip);
    values[0] = IValue(trip + 1);
    return pc + 1;
  }
  for (std::size_t i = 0; i + 2 < n; ++i) values[i] = std::move(values[i + 3]);
  ops::drop(f.stack, 3);
  return pc + static_cast<std::size_t>(static_cast<std::ptrdiff_t>(ins.x));
}

// ---------------------------------------------------------------- operators

// An operator fusion added (mobile/operator_fusion.h): a kernel with an activation in its
// epilogue, a convolution with a batch norm folded in, or the folded batch norm; a chain's
// convolution, max pool or cat.
void run_fused_operator(Frame& f, const mobile::ResolvedOperator& op, std::size_t pc);

// A model whose bytecode calls an operator with fewer values on the stack than it passes.
[[noreturn]] void operator_stack_underflow(const mobile::ResolvedOperator& op, std::size_t passed,
                                           std::size_t on_stack);

// OP X / OPN X N: operator X on its arguments (OPN also pushes N, the count of its varargs).
[[gnu::always_inline]] inline void run_operator(Frame& f, const Instruction& ins, std::size_t pc) {
  const auto& op = f.fn.operators[as_index(ins.x)];
  // Kernels read their arguments in place below the stack's top, unchecked: a crafted file
  // could otherwise have them read below the stack.
  const std::size_t passed =
      ins.op == mobile::OpCode::kOpN ? as_index(ins.n) : op.num_specified_args;
  if (f.stack.size() < passed) [[unlikely]] {
    operator_stack_underflow(op, passed, f.stack.size());
  }
  if (ins.op == mobile::OpCode::kOpN) f.stack.emplace_back(static_cast<std::int64_t>(ins.n));
  // Arguments the bytecode left out take the schema's defaults.
  const auto& defaults = op.def->defaults;
  std::size_t first_default = op.def->num_args - defaults.size();
  for (std::size_t i = op.num_specified_args; i < op.def->num_args; ++i) {
    f.stack.push_back(defaults[i - first_default]);
  }
  if (op.fused()) [[unlikely]] {
    run_fused_operator(f, op, pc);
    return;
  }
  // Profiling costs a thread-local load and a branch when no sink is installed.
  if (profiler::EventSink* sink = profiler::current_sink()) {
    std::size_t num_inputs =
        ins.op == mobile::OpCode::kOpN ? as_index(ins.n) + 1 : op.def->num_args;
    run_profiled_op(op, num_inputs, handle_at(f.fn, pc), f.stack, *sink);
  } else {
    op.def->kernel(f.stack);
  }
}

// ---------------------------------------------------------------- objects

[[noreturn]] void bad_attribute_slot(const Instruction& ins, const ops::Object& object);

[[gnu::always_inline]] inline void get_attr(Frame& f, const Instruction& ins) {
  IValue object = ops::pop(f.stack);
  auto& slots = object.to_object().slots;
  if (as_index(ins.x) >= slots.size()) bad_attribute_slot(ins, object.to_object());
  f.stack.push_back(slots[as_index(ins.x)]);
}
void set_attr(Stack& stack, const Instruction& ins);
void create_object(const mobile::LoadedFunction& fn, Stack& stack, const Instruction& ins);
// INTERFACE_CALL on an object of a custom C++ class (a delegate backend): runs its C++ method
// and returns true; false for a model object, whose method is bytecode the interpreter runs.
bool call_custom_class(const mobile::LoadedFunction& fn, Stack& stack, const Instruction& ins,
                       std::size_t pc);

// ---------------------------------------------------------------- containers

// LIST_CONSTRUCT, TUPLE_CONSTRUCT and NAMED_TUPLE_CONSTRUCT: the top values (X of them for a
// tuple, N for the others) as one list or tuple.
[[gnu::always_inline]] inline void construct_sequence(Frame& f, const Instruction& ins) {
  std::size_t n = as_index(ins.op == mobile::OpCode::kTupleConstruct ? ins.x : ins.n);
  if (f.stack.size() < n) throw Error(ErrorKind::kModel, "stack underflow");
  ops::IValueList items(std::make_move_iterator(f.stack.end() - static_cast<std::ptrdiff_t>(n)),
                        std::make_move_iterator(f.stack.end()));
  ops::drop(f.stack, n);
  f.stack.push_back(ins.op == mobile::OpCode::kListConstruct ? IValue::list(std::move(items))
                                                             : IValue::tuple(std::move(items)));
}
void list_unpack(Stack& stack, const Instruction& ins);
void tuple_slice(Stack& stack, const Instruction& ins);
void tuple_index(Stack& stack);
void dict_construct(Stack& stack, const Instruction& ins);
void dict_index(Stack& stack);

// ---------------------------------------------------------------- types and values

void is_instance(const mobile::LoadedFunction& fn, Stack& stack, const Instruction& ins);
void is_same(Stack& stack, const Instruction& ins);  // __IS__ and __ISNOT__
void logical_not(Stack& stack);
void format_text(Stack& stack, const Instruction& ins);
void tensor_device(Stack& stack);
void tensor_dtype(Stack& stack);
void tensor_is_cuda(Stack& stack);
void number_to_tensor(Stack& stack);
void tensor_dim(Stack& stack);
void tensor_tolist(Stack& stack);
void push_uninitialized(Stack& stack);

// ---------------------------------------------------------------- exceptions and warnings

[[noreturn]] void raise_exception(Stack& stack);
void warn(Stack& stack);
// CALL, ENTER and EXIT: the verifier refuses them at load (bytecode_verifier.cpp says why).
[[noreturn]] void unreachable(const Instruction& ins);

}  // namespace symbolite::runtime::instructions
