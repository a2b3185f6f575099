// Operators that are others under another name (numpy's and torch's spellings: arccos, greater,
// multiply, divide, concat, absolute_, ...) and the few that are another with fixed arguments
// (relu6 is hardtanh(0, 6), msort is sort along dim 0, fliplr / flipud, ravel, mT / mH /
// adjoint / matrix_H: symbolite's tensors are real, so the conjugate transposes are transposes).
// Aliases share their base's kernel; the others call kernels resolved at registration.
#include <cstdint>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/ops/registry/resolved_kernel.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// positive(self): self itself; PyTorch refuses bool.
void positive(Stack& s) {
  if (s.back().to_tensor().dtype() == DType::kBool) {
    fail("The `+` operator, on a bool tensor is not supported.");
  }
}

// relu6(self) / relu6_(self): hardtanh(self, 0, 6), as PyTorch composes it.
template <OpName kHardtanh>
void relu6(Stack& s) {
  s.emplace_back(std::int64_t{0});
  s.emplace_back(std::int64_t{6});
  ResolvedKernel<kHardtanh>::call(s);
}

// msort(self): the values of sort(self, dim=0).
void msort(Stack& s) {
  s.emplace_back(std::int64_t{0});
  s.emplace_back(false);
  ResolvedKernel<"aten::sort">::call(s);
  s.pop_back();  // the indices
}

// ravel(self): self flattened (a view when self is contiguous).
void ravel(Stack& s) {
  s.push_back(int_list_value({-1}));
  ResolvedKernel<"aten::reshape">::call(s);
}

// fliplr / flipud: flip along dim 1 (of at least 2-D) or dim 0 (of at least 1-D).
template <std::int64_t kDim>
void flip_dim(Stack& s) {
  if (s.back().to_tensor().dim() < kDim + 1) fail(fmt::format("Input must be >= {}-d.", kDim + 1));
  s.push_back(int_list_value({kDim}));
  ResolvedKernel<"aten::flip">::call(s);
}

// The last two dimensions transposed, for mT, mH and adjoint (matrices or batches of them) and
// matrix_H (matrices only); a 0-dim tensor is its own transpose.
enum class Transpose { kMT, kMH, kAdjoint, kMatrixH };

template <Transpose kKind>
void transpose_matrix_op(Stack& s) {
  const std::int64_t dim = s.back().to_tensor().dim();
  if (dim == 0) return;
  if (kKind == Transpose::kMatrixH && dim != 2) {
    fail(fmt::format("tensor.H is only supported on matrices (2-D tensors). Got {}-D tensor.{}",
                     dim, dim > 2 ? " For batches of matrices, consider using tensor.mH" : ""));
  }
  if (dim < 2) {
    const char* what = kKind == Transpose::kMT   ? "tensor.mT"
                       : kKind == Transpose::kMH ? "tensor.mH"
                                                 : "tensor.adjoint()";
    fail(fmt::format("{} is only supported on matrices or batches of matrices. Got {}-D tensor.",
                     what, dim));
  }
  s.emplace_back(std::int64_t{-2});
  s.emplace_back(std::int64_t{-1});
  ResolvedKernel<"aten::transpose.int">::call(s);
}

}  // namespace

void register_alias_ops(OperatorRegistry& r) {
  // {alias, base}, both without "aten::"; in-place aliases after the in_place family.
  const std::pair<const char*, const char*> aliases[] = {
      {"absolute", "abs"},
      {"absolute_", "abs_"},
      {"arccos", "acos"},
      {"arccos_", "acos_"},
      {"arcsin", "asin"},
      {"arcsin_", "asin_"},
      {"arctan", "atan"},
      {"arctan_", "atan_"},
      {"arccosh", "acosh"},
      {"arccosh_", "acosh_"},
      {"arcsinh", "asinh"},
      {"arcsinh_", "asinh_"},
      {"arctanh", "atanh"},
      {"arctanh_", "atanh_"},
      {"arctan2_", "atan2_"},
      {"greater.Scalar", "gt.Scalar"},
      {"greater.Tensor", "gt.Tensor"},
      {"greater_.Scalar", "gt_.Scalar"},
      {"greater_.Tensor", "gt_.Tensor"},
      {"greater_equal.Scalar", "ge.Scalar"},
      {"greater_equal.Tensor", "ge.Tensor"},
      {"greater_equal_.Scalar", "ge_.Scalar"},
      {"greater_equal_.Tensor", "ge_.Tensor"},
      {"less.Scalar", "lt.Scalar"},
      {"less.Tensor", "lt.Tensor"},
      {"less_.Scalar", "lt_.Scalar"},
      {"less_.Tensor", "lt_.Tensor"},
      {"less_equal.Scalar", "le.Scalar"},
      {"less_equal.Tensor", "le.Tensor"},
      {"less_equal_.Scalar", "le_.Scalar"},
      {"less_equal_.Tensor", "le_.Tensor"},
      {"not_equal.Scalar", "ne.Scalar"},
      {"not_equal.Tensor", "ne.Tensor"},
      {"not_equal_.Scalar", "ne_.Scalar"},
      {"not_equal_.Tensor", "ne_.Tensor"},
      {"multiply.Scalar", "mul.Scalar"},
      {"multiply.Tensor", "mul.Tensor"},
      {"multiply_.Scalar", "mul_.Scalar"},
      {"multiply_.Tensor", "mul_.Tensor"},
      {"divide.Scalar", "div.Scalar"},
      {"divide.Tensor", "div.Tensor"},
      {"divide.Scalar_mode", "div.Scalar_mode"},
      {"divide.Tensor_mode", "div.Tensor_mode"},
      {"divide_.Scalar", "div_.Scalar"},
      {"divide_.Tensor", "div_.Tensor"},
      {"divide_.Scalar_mode", "div_.Scalar_mode"},
      {"divide_.Tensor_mode", "div_.Tensor_mode"},
      {"true_divide_.Scalar", "div_.Scalar"},
      {"true_divide_.Tensor", "div_.Tensor"},
      {"subtract.Scalar", "sub.Scalar"},
      {"subtract.Tensor", "sub.Tensor"},
      {"subtract_.Scalar", "sub_.Scalar"},
      {"subtract_.Tensor", "sub_.Tensor"},
      {"negative", "neg"},
      {"negative_", "neg_"},
      {"fix", "trunc"},
      {"fix_", "trunc_"},
      {"clip_.Tensor", "clamp_.Tensor"},
      {"concat", "cat"},
      {"concatenate", "cat"},
      {"linalg_matmul", "matmul"}};
  for (const auto& [alias, base] : aliases) {
    add_alias(r, std::string("aten::") + alias, std::string("aten::") + base);
  }

  ResolvedKernel<"aten::hardtanh">::resolve(r, "aten::relu6");
  ResolvedKernel<"aten::hardtanh_">::resolve(r, "aten::relu6_");
  ResolvedKernel<"aten::sort">::resolve(r, "aten::msort");
  ResolvedKernel<"aten::reshape">::resolve(r, "aten::ravel");
  ResolvedKernel<"aten::flip">::resolve(r, "aten::fliplr");
  ResolvedKernel<"aten::transpose.int">::resolve(r, "aten::mT");
  r.add({"aten::positive", 1, {}, positive});
  r.add({"aten::relu6", 1, {}, relu6<"aten::hardtanh">});
  r.add({"aten::relu6_", 1, {}, relu6<"aten::hardtanh_">});
  r.add({"aten::msort", 1, {}, msort});
  r.add({"aten::ravel", 1, {}, ravel});
  r.add({"aten::fliplr", 1, {}, flip_dim<1>});
  r.add({"aten::flipud", 1, {}, flip_dim<0>});
  r.add({"aten::mT", 1, {}, transpose_matrix_op<Transpose::kMT>});
  r.add({"aten::mT.a", 1, {}, transpose_matrix_op<Transpose::kMT>});
  r.add({"aten::mH", 1, {}, transpose_matrix_op<Transpose::kMH>});
  r.add({"aten::mH.a", 1, {}, transpose_matrix_op<Transpose::kMH>});
  r.add({"aten::adjoint", 1, {}, transpose_matrix_op<Transpose::kAdjoint>});
  r.add({"aten::matrix_H", 1, {}, transpose_matrix_op<Transpose::kMatrixH>});
  r.add({"aten::matrix_H.a", 1, {}, transpose_matrix_op<Transpose::kMatrixH>});
}

}  // namespace symbolite::ops
