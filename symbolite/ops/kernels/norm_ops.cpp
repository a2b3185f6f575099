// aten::norm (torch.norm / Tensor.norm with p and dims): the vector p-norm as torch.norm
// defines it for every p — the largest |x| for inf, the smallest for -inf, the count of
// non-zero entries for 0, else (sum |x|^p)^(1/p) (negative p too); p None is 2. Also the
// p-norm of pairwise_distance (loss_ops.cpp).
#include <cmath>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {

IValue vector_norm(const IValue& x, double p, const IValue& dims, bool keepdim) {
  if (p == 2) {
    // |x|^2 is x * x and a power of 1/2 a square root, bit for bit: two passes fewer.
    IValue squares = run_op("aten::mul.Tensor", {x, x});
    return run_op("aten::sqrt", {run_op("aten::sum.dim_IntList", {squares, dims, keepdim})});
  }
  IValue d = run_op("aten::abs", {x});
  if (std::isinf(p)) {
    IValue signed_d = p > 0 ? d : run_op("aten::neg", {d});
    IValue extreme = run_op("aten::amax", {signed_d, dims, keepdim});
    return p > 0 ? extreme : run_op("aten::neg", {extreme});
  }
  if (p == 0) {
    IValue zero = run_op("aten::mul.Scalar", {d, 0.0});  // d's dtype and shape
    IValue one = run_op("aten::add.Scalar", {zero, 1});
    IValue nonzero = run_op("aten::where.self", {run_op("aten::ne.Scalar", {d, 0}), one, zero});
    return run_op("aten::sum.dim_IntList", {nonzero, dims, keepdim});
  }
  IValue summed =
      run_op("aten::sum.dim_IntList", {run_op("aten::pow.Tensor_Scalar", {d, p}), dims, keepdim});
  return run_op("aten::pow.Tensor_Scalar", {summed, 1.0 / p});
}

namespace {

void require_floating_norm(const tensor::Tensor& x) {
  if (x.dtype() != tensor::DType::kFloat32 && x.dtype() != tensor::DType::kFloat64) {
    fail(fmt::format(
        "norm(): input dtype should be either floating point or complex. Got {} instead.",
        tensor::scalar_type_name(x.dtype())));
  }
}

// norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor
void norm_dims(Stack& s) {
  const bool keepdim = pop(s).to_bool();
  IValue dims = pop(s), p = pop(s), self = pop(s);
  require_floating_norm(self.to_tensor());
  s.push_back(vector_norm(self, p.is_none() ? 2.0 : p.to_double(), dims, keepdim));
}

// norm.Scalar(Tensor self, Scalar p=2) -> Tensor: over every element.
void norm_all(Stack& s) {
  IValue p = pop(s), self = pop(s);
  require_floating_norm(self.to_tensor());
  IValue flat = run_op("aten::reshape", {self, ints({-1})});
  s.push_back(vector_norm(flat, p.to_double(), ints({0}), false));
}

}  // namespace

void register_norm_ops(OperatorRegistry& r) {
  r.add({"aten::norm.ScalarOpt_dim", 4, {IValue(false)}, norm_dims});
  r.add({"aten::norm.Scalar", 2, {IValue(2)}, norm_all});
}

}  // namespace symbolite::ops::nn
