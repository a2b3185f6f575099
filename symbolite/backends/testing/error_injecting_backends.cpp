#include "symbolite/backends/testing/error_injecting_backends.h"

#include <fmt/format.h>

#include "symbolite/runtime/delegate/delegate_backend.h"
#include "symbolite/runtime/delegate/program_backend.h"
#include "symbolite/support/error.h"

namespace symbolite::backends {
namespace {

bool is_relu(const std::string& op) { return op == "aten::relu" || op == "aten::relu_"; }

class FailingRelu final : public runtime::StepAccelerator {
 public:
  bool run(ops::Stack& /*stack*/) override {
    throw Error(ErrorKind::kModel, "relu_runtime_error: injected failure (test backend)");
  }
};

// relu(x) = x + 1, in a new tensor (the in-place form writes its input, as relu_ would).
class WrongRelu final : public runtime::StepAccelerator {
 public:
  explicit WrongRelu(bool in_place) : in_place_(in_place) {}
  bool run(ops::Stack& stack) override {
    const auto& x = stack.back().to_tensor();
    if (x.dtype() != tensor::DType::kFloat32) return false;
    tensor::Tensor in = x.contiguous();
    tensor::Tensor out =
        in_place_ && x.is_contiguous() ? x : tensor::Tensor::uninitialized(x.sizes(), x.dtype());
    const float* src = in.data<float>();
    float* dst = out.mutable_data<float>();
    for (std::int64_t i = 0; i < in.numel(); ++i) dst[i] = src[i] + 1.0f;
    stack.back() = ops::IValue(std::move(out));
    return true;
  }

 private:
  bool in_place_;
};

std::unique_ptr<runtime::StepAccelerator> compile_error(const runtime::CompiledProgram& p,
                                                        std::size_t step) {
  const auto& s = p.program.steps[step];
  if (is_relu(s.op)) {
    throw runtime::DelegateFailure(
        s.handle, "RuntimeError",
        fmt::format("relu_compile_error: cannot compile {} (test backend)", s.op));
  }
  return nullptr;
}

std::unique_ptr<runtime::StepAccelerator> runtime_error(const runtime::CompiledProgram& p,
                                                        std::size_t step) {
  return is_relu(p.program.steps[step].op) ? std::make_unique<FailingRelu>() : nullptr;
}

std::unique_ptr<runtime::StepAccelerator> accuracy_error(const runtime::CompiledProgram& p,
                                                         std::size_t step) {
  const auto& op = p.program.steps[step].op;
  return is_relu(op) ? std::make_unique<WrongRelu>(op == "aten::relu_") : nullptr;
}

}  // namespace

void register_error_injecting_backends() {
  runtime::register_delegate_backend("relu_compile_error", [] {
    return std::make_unique<runtime::ProgramBackend>(compile_error);
  });
  runtime::register_delegate_backend("relu_runtime_error", [] {
    return std::make_unique<runtime::ProgramBackend>(runtime_error);
  });
  runtime::register_delegate_backend("relu_accuracy_error", [] {
    return std::make_unique<runtime::ProgramBackend>(accuracy_error);
  });
}

}  // namespace symbolite::backends
