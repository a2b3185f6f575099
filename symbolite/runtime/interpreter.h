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

namespace symbolite::runtime {

class Interpreter {
 public:
  // `model` must outlive the interpreter.
  explicit Interpreter(const mobile::LoadedModel& model);

  // Calls method `name` of the top module with `inputs` (self is added). Throws RunError for
  // failures inside the model, Error(kNotFound / kUsage) for a missing method or a wrong
  // number of inputs.
  ops::IValue run_method(std::string_view name, std::vector<ops::IValue> inputs);

 private:
  ops::IValue run(const mobile::LoadedFunction& fn, ops::Stack& stack, std::size_t depth);
  [[noreturn]] void fail(const mobile::LoadedFunction& fn, std::size_t pc,
                         std::string python_class, std::string message,
                         std::optional<debuginfo::DebugHandle> delegate_handle = {}) const;
  // Makes the model's pending `__setstate__` calls (lowered modules compile their payloads).
  void finish_objects();

  const mobile::LoadedModel& model_;
  std::optional<debuginfo::Symbolicator> symbolicator_;
};

}  // namespace symbolite::runtime
