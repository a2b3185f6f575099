// The delegate backend that runs symbolite's delegate programs (mobile/delegate_program.h)
// with symbolite's own kernels, registered as "symbolite" (the backend of
// libsymbolite_torch.so, so files lowered for PyTorch run here too) and "eager" (the debugging
// backend: a partition run by the interpreter's kernels isolates partitioning and
// serialization bugs from a backend's own). Each program's operators are resolved at compile
// (load), so an operator symbolite lacks fails the load, naming it and its debug handle.
//
// When a profiler sink is installed, every delegate node reports its own event with its
// delegate handle (source kDelegateEventSource), so profiles see inside the delegate.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "symbolite/mobile/delegate_program.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/delegate/delegate_backend.h"

namespace symbolite::runtime {

// OpEvent::source of events reported from inside a delegate.
constexpr std::uint32_t kDelegateEventSource = 1;

// A backend's own implementation of one delegate node (an XNNPACK operator, say). It gets the
// node's arguments as a kernel does (the top of the stack, defaults included) and either pops
// them and pushes the results, or returns false and leaves the stack as it was, and the
// reference kernel runs (inputs it does not handle: a dtype, a shape, a mode).
class StepAccelerator {
 public:
  virtual ~StepAccelerator() = default;
  virtual bool run(ops::Stack& stack) = 0;
};

struct CompiledProgram;
// Makes the accelerator of step `step`, or null to run the reference kernel; sees the
// program's constants (weights, hyper-parameters) to prepare what it can at load.
using AcceleratorFactory = std::function<std::unique_ptr<StepAccelerator>(
    const CompiledProgram& program, std::size_t step)>;

// A delegate program ready to run: operators resolved, weights bound.
struct CompiledProgram {
  mobile::DelegateProgram program;
  std::vector<mobile::ResolvedOperator> operators;             // per step
  std::vector<ops::IValue> constants;                          // per value id; op outputs stay None
  std::vector<std::unique_ptr<StepAccelerator>> accelerators;  // per step; null: reference

  // The constant value of argument `arg` of step `step` (None when it is computed).
  const ops::IValue& argument(std::size_t step, std::size_t arg) const;
};

// Resolves `program`'s operators and binds `weights`; Error naming the step otherwise.
CompiledProgram compile_program(mobile::DelegateProgram program, const ops::IValueList& weights,
                                const AcceleratorFactory& accelerate = {});

// Runs a compiled program on `inputs`. A failing step throws DelegateFailure with its handle.
ops::IValueList run_program(const CompiledProgram& compiled, const ops::IValueList& inputs);

// The payload of one method as preprocess writes it: (program text, weights) or the text
// alone. Error(kModel) for anything else.
CompiledProgram compile_payload(const std::string& method, const ops::IValue& payload,
                                const AcceleratorFactory& accelerate = {});

class ProgramBackend final : public DelegateBackend {
 public:
  ProgramBackend() = default;
  explicit ProgramBackend(AcceleratorFactory accelerate) : accelerate_(std::move(accelerate)) {}
  bool is_available() const override { return true; }
  ops::IValue compile(const ops::IValue& processed, const ops::IValue& compile_spec) override;
  ops::IValueList execute(const ops::IValue& handle, const ops::IValueList& inputs) override;

 private:
  AcceleratorFactory accelerate_;
  std::vector<CompiledProgram> programs_;
};

}  // namespace symbolite::runtime
