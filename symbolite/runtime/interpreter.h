// The interpreter: runs a LoadedModel's bytecode. Operators were resolved and operands
// verified at load (mobile/bytecode_verifier.h), so the loop only dispatches.
//
// Any failure — a kernel error, an exception raised by model code, a type mismatch — leaves
// as one RunError carrying the Python exception class, the message, and the symbolicated
// location of the failing instruction (run_error.h).
//
// The first interpreter of a model finishes its objects: the `__setstate__` calls loading
// left pending (mobile/loaded_model.h), which is when lowered modules create and compile
// their delegate backends; a failure there is a RunError from the constructor.
//
// Thread safety: an Interpreter may be used from one thread at a time; several interpreters
// may share one LoadedModel, but module attributes set by SET_ATTR are shared state.
#pragma once

#include <string_view>
#include <vector>

#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/runtime/run_budget.h"

namespace symbolite::runtime {

class Interpreter {
 public:
  // `model` must outlive the interpreter.
  explicit Interpreter(const mobile::LoadedModel& model);

  // Calls method `name` of the top module with `inputs` (self is added). Throws RunError for
  // failures inside the model, Error(kNotFound / kUsage) for a missing method or a wrong
  // number of inputs.
  ops::IValue run_method(std::string_view name, std::vector<ops::IValue> inputs);

  // Limits for the following run_method calls (run_budget.h); by default only the stack is
  // bounded.
  void set_budget(const RunBudget& budget) { budget_ = budget; }

 private:
  // `root_self`: the root module is `self`, so code folding its values may run.
  ops::IValue run(const mobile::LoadedFunction& fn, ops::Stack& stack, std::size_t depth,
                  bool root_self = false);
  // INTERFACE_CALL: a custom class's C++ method, or the object's bytecode method run
  // one call deeper; its result is pushed.
  void interface_call(const mobile::LoadedFunction& fn, const mobile::Instruction& ins,
                      ops::Stack& stack, std::size_t pc, std::size_t depth);
  [[noreturn]] void fail(const mobile::LoadedFunction& fn, std::size_t pc, std::string python_class,
                         std::string message,
                         std::optional<debuginfo::DebugHandle> delegate_handle = {}) const;
  // Makes the model's pending `__setstate__` calls (lowered modules compile their payloads).
  void finish_objects();
  // Called every few thousand instructions and when the instruction limit is reached: throws
  // the RunError that stops a run over its budget.
  void check_budget(const mobile::LoadedFunction& fn, std::size_t pc, const ops::Stack& stack);

  const mobile::LoadedModel& model_;
  std::optional<debuginfo::Symbolicator> symbolicator_;
  RunBudget budget_;
  // Per run_method call: instructions executed, the count at which to check the budget next,
  // and when the run started.
  std::uint64_t executed_ = 0;
  std::uint64_t next_check_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace symbolite::runtime
