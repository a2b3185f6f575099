// What the XNNPACK nodes share: reading a step's static arguments at load, and the base class
// that takes a step's arguments off the stack and pushes its result.
#pragma once

#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

#include "symbolite/backends/xnnpack/xnnpack_operator.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/runtime/delegate/program_backend.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::backends {

inline constexpr float kNoMin = -std::numeric_limits<float>::infinity();
inline constexpr float kNoMax = std::numeric_limits<float>::infinity();

// Argument `i` of step `step` when it is known at load (a constant, a weight, a list of them,
// or the schema's default); nullopt when it is computed at run time.
std::optional<ops::IValue> static_arg(const runtime::CompiledProgram& program, std::size_t step,
                                      std::size_t i);
// The same as ints (a list of `n` ints; one int is repeated, as PyTorch's int[2] allows).
std::optional<std::vector<std::int64_t>> static_ints(const runtime::CompiledProgram& program,
                                                     std::size_t step, std::size_t i,
                                                     std::size_t n);
// A static number (int or float).
std::optional<double> static_number(const runtime::CompiledProgram& program, std::size_t step,
                                    std::size_t i);

inline bool is_float_tensor(const ops::IValue& v) {
  return v.is(ops::IValue::Kind::kTensor) && v.to_tensor().dtype() == tensor::DType::kFloat32;
}

// An XNNPACK node: one call at a time (operators are set up per call, for its shapes).
class XnnNode : public runtime::StepAccelerator {
 public:
  explicit XnnNode(std::size_t num_args) : num_args_(num_args) {}

 protected:
  ops::IValue* args(ops::Stack& stack) const { return ops::last(stack, num_args_); }
  bool finish(ops::Stack& stack, tensor::Tensor result) const {
    ops::drop(stack, num_args_);
    stack.emplace_back(std::move(result));
    return true;
  }
  std::mutex mutex_;

 private:
  std::size_t num_args_;
};

// (H + 2p - d(k-1) - 1) / s + 1, or nullopt when the window does not fit (floor mode).
std::optional<std::int64_t> pooled_size(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                        std::int64_t padding, std::int64_t dilation);

}  // namespace symbolite::backends
