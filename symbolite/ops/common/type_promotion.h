// PyTorch 1.13's type promotion (c10/core/ScalarType.h promoteTypes and
// ATen/native/TypeProperties.cpp result_type) for the dtypes symbolite computes with.
//
// Operands come in three priorities: tensors with dimensions, zero-dim tensors, and wrapped
// numbers (Python scalars, `x + 1`). A lower-priority operand only changes the result when it
// is of a higher category (bool < integral < floating): `int_tensor + 0.5` is float32 (the
// default float dtype), `float_tensor + float64_zero_dim` stays float32, `int8_tensor + 1000`
// stays int8.
#pragma once

#include <optional>
#include <string_view>

#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/tensor/dtype.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

bool is_floating(tensor::DType dtype);  // float16, bfloat16, float32, float64
bool is_integral(tensor::DType dtype);  // integer types, not bool

// promoteTypes (the lattice of two dtypes).
tensor::DType promote_types(tensor::DType a, tensor::DType b);
// The dtype of a Scalar IValue: int → Long, float → Double, bool → Bool.
tensor::DType scalar_dtype(const IValue& scalar);
// canCast: whether an op computing in `from` may write into a `to` output (float to integral
// and non-bool to bool may not).
bool can_cast(tensor::DType from, tensor::DType to);

class ResultType {
 public:
  ResultType& tensor(const tensor::Tensor& t);
  // A Python number: floats count as the default dtype (float32).
  ResultType& scalar(const IValue& s);
  // A Tensor or Scalar argument, whichever `v` holds.
  ResultType& operand(const IValue& v);
  tensor::DType result() const;

 private:
  std::optional<tensor::DType> dim_, zero_, wrapped_;
};

// RuntimeError `"sigmoid_cpu" not implemented for 'Long'`: PyTorch's dispatch failure.
[[noreturn]] void not_implemented(std::string_view kernel, tensor::DType dtype);

// A Scalar operand as PyTorch wraps it (wrapped_scalar_tensor): a 0-dim tensor of the
// operation's dtype, which does not raise the dtype of a tensor `other` of the same kind.
tensor::Tensor wrapped_scalar(const IValue& scalar, const tensor::Tensor& other);

}  // namespace symbolite::ops
