// Reading kernel arguments from IValues, and the argument checks PyTorch does the same way in
// every operator: dimension wrapping (with its IndexError text), dim lists, ScalarType codes.
// Shared by the tensor kernel families.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/tensor/dtype.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

// An `int[]` argument; a bare int counts as a one-element list (as `int[1]` schemas allow).
std::vector<std::int64_t> int_list_arg(const IValue& v);
// The other way: an `int[]` value from sizes, for a nested run_op call.
IValue int_list_value(const std::vector<std::int64_t>& values);
// int_list_arg without its errors, for code that inspects arguments before a kernel reads
// them: nullopt for anything but an int or a list or tuple of ints.
std::optional<std::vector<std::int64_t>> int_list_if(const IValue& v);
// An `int[]?` argument: None gives nullopt.
std::optional<std::vector<std::int64_t>> optional_int_list_arg(const IValue& v);
// A `Tensor[]` argument.
std::vector<tensor::Tensor> tensor_list_arg(const IValue& v);

// A `ScalarType?` argument (PyTorch's c10::ScalarType codes: 6 = Float, 4 = Long, ...).
// None gives nullopt; a code symbolite has no DType for fails with a RuntimeError.
std::optional<tensor::DType> dtype_arg(const IValue& v);
// A `ScalarType` argument: the same, but None is refused as any non-int is.
tensor::DType required_dtype_arg(const IValue& v);
// The c10::ScalarType code of `dtype`.
std::int64_t scalar_type_code(tensor::DType dtype);
// `dtype` as a `ScalarType` argument (its code), for calling other operators.
inline IValue dtype_value(tensor::DType dtype) { return IValue(scalar_type_code(dtype)); }

// PyTorch's maybe_wrap_dim: `dim` in [-ndim, ndim) (a 0-dim tensor counts as 1-dim) made
// non-negative; IndexError "Dimension out of range (expected to be in range of [-2, 1], but
// got 2)" otherwise.
std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim);
// Which of `ndim` dimensions `dims` names (wrapped); RuntimeError "dim 0 appears multiple
// times in the list of dims" for a repeat. An empty list selects every dimension.
std::vector<bool> dim_mask(const std::vector<std::int64_t>& dims, std::int64_t ndim);

}  // namespace symbolite::ops
