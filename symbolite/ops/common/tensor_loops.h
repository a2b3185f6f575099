// Building blocks for tensor kernels: dtype dispatch, element conversion with c10's rules,
// strided iteration over one or more operands, dtype casts and writing results into an
// existing (in-place) tensor.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

// Calls `f(T{})` with T the element type of `dtype`, for the dtypes symbolite computes in
// (float32, float64, the integer types, bool); float16/bfloat16 fail as PyTorch's dispatch
// does when a kernel lacks a type: `"<kernel>" not implemented for 'Half'`.
template <typename F>
decltype(auto) dispatch_all(tensor::DType dtype, std::string_view kernel, F&& f) {
  using tensor::DType;
  switch (dtype) {
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat64:
      return f(double{});
    case DType::kInt64:
      return f(std::int64_t{});
    case DType::kInt32:
      return f(std::int32_t{});
    case DType::kInt16:
      return f(std::int16_t{});
    case DType::kInt8:
      return f(std::int8_t{});
    case DType::kUInt8:
      return f(std::uint8_t{});
    case DType::kBool:
      return f(bool{});
    default:
      break;
  }
  not_implemented(kernel, dtype);
}

// As dispatch_all, without bool.
template <typename F>
decltype(auto) dispatch_numeric(tensor::DType dtype, std::string_view kernel, F&& f) {
  if (dtype == tensor::DType::kBool) not_implemented(kernel, dtype);
  return dispatch_all(dtype, kernel, std::forward<F>(f));
}

// float32 and float64 only.
template <typename F>
decltype(auto) dispatch_floating(tensor::DType dtype, std::string_view kernel, F&& f) {
  if (dtype == tensor::DType::kFloat32) return f(float{});
  if (dtype == tensor::DType::kFloat64) return f(double{});
  not_implemented(kernel, dtype);
}

// Whether an element is NaN; integers and bools never are.
template <typename T>
bool is_nan_element(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Element conversion as c10::convert / static_cast: to bool is `!= 0`; floating to integral
// truncates (saturating instead of undefined behaviour when out of range, NaN gives 0).
template <typename To, typename From>
To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(v)) return To{};
    if (v <= static_cast<From>(std::numeric_limits<To>::lowest())) {
      return std::numeric_limits<To>::lowest();
    }
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// A Scalar IValue (int, float, bool) as T.
template <typename T>
T scalar_as(const IValue& s) {
  if (s.is(IValue::Kind::kDouble)) return convert<T>(s.to_double());
  if (s.is(IValue::Kind::kBool)) return convert<T>(s.to_bool());
  return convert<T>(s.to_int());
}

// Strides of `t` against the broadcast shape `out_sizes`: aligned at the last dimension, 0
// where `t` is broadcast (missing or size 1 against a larger size).
std::vector<std::int64_t> broadcast_strides(const tensor::Tensor& t,
                                            std::span<const std::int64_t> out_sizes);

// Calls `f(offsets)` for every index of `sizes` in row-major order, where offsets[i] is the
// element offset of operand i (its strides in `strides[i]`, one per dimension of `sizes`).
template <std::size_t N, typename F>
void for_each_offset(std::span<const std::int64_t> sizes,
                     const std::array<const std::int64_t*, N>& strides, F&& f) {
  std::size_t dims = sizes.size();
  for (std::int64_t s : sizes) {
    if (s == 0) return;
  }
  std::array<std::int64_t, N> off{};
  if (dims == 0) {
    f(off);
    return;
  }
  std::vector<std::int64_t> index(dims, 0);
  std::size_t last = dims - 1;
  std::int64_t inner = sizes[last];
  for (;;) {
    std::array<std::int64_t, N> o = off;
    for (std::int64_t i = 0; i < inner; ++i) {
      f(o);
      for (std::size_t k = 0; k < N; ++k) o[k] += strides[k][last];
    }
    // advance the outer dimensions
    std::size_t d = last;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < sizes[d]) {
        for (std::size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (std::size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
}

// Calls `f(offsets)` as for_each_offset does, for the row-major indices [first, first +
// count) of `sizes` only: a share of the iteration, for one thread of a parallel loop.
template <std::size_t N, typename F>
void for_each_offset_in(std::span<const std::int64_t> sizes,
                        const std::array<const std::int64_t*, N>& strides, std::int64_t first,
                        std::int64_t count, F&& f) {
  if (count <= 0) return;
  const std::size_t dims = sizes.size();
  std::vector<std::int64_t> index(dims, 0);
  std::array<std::int64_t, N> off{};
  std::int64_t rest = first;  // first's index, the last dimension fastest
  for (std::size_t d = dims; d-- > 0;) {
    index[d] = rest % sizes[d];
    rest /= sizes[d];
    for (std::size_t k = 0; k < N; ++k) off[k] += index[d] * strides[k][d];
  }
  for (;;) {
    f(off);
    if (--count == 0) return;
    for (std::size_t d = dims; d-- > 0;) {
      if (++index[d] < sizes[d]) {
        for (std::size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (std::size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
}

// Merges adjacent dimensions that every operand walks as one (stride[d] == stride[d+1] *
// size[d+1]) and drops size-1 dimensions, so loops run over fewer, longer dimensions. Keeps
// at least one dimension.
template <std::size_t N>
void coalesce_dims(std::vector<std::int64_t>& sizes,
                   std::array<std::vector<std::int64_t>, N>& strides) {
  std::vector<std::int64_t> out_sizes;
  std::array<std::vector<std::int64_t>, N> out_strides;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    bool merge = !out_sizes.empty();
    for (std::size_t k = 0; k < N && merge; ++k) {
      merge = out_strides[k].back() == strides[k][d] * sizes[d];
    }
    if (merge) {
      out_sizes.back() *= sizes[d];
      for (std::size_t k = 0; k < N; ++k) out_strides[k].back() = strides[k][d];
    } else {
      out_sizes.push_back(sizes[d]);
      for (std::size_t k = 0; k < N; ++k) out_strides[k].push_back(strides[k][d]);
    }
  }
  if (out_sizes.empty()) {
    out_sizes.push_back(1);
    for (std::size_t k = 0; k < N; ++k) out_strides[k].push_back(0);
  }
  sizes = std::move(out_sizes);
  strides = std::move(out_strides);
}

// A contiguous tensor with the values of `t` converted to `dtype` (`t` itself when it already
// is contiguous and of that dtype).
tensor::Tensor to_dtype(const tensor::Tensor& t, tensor::DType dtype);

// A zero-dim tensor of `dtype` holding the Scalar `s`.
tensor::Tensor scalar_tensor(const IValue& s, tensor::DType dtype);

// Writes `src` (converted) into `dst` element by element; shapes must be equal. `dst` must be
// writable.
void copy_into(const tensor::Tensor& dst, const tensor::Tensor& src);

// The in-place update `self op= ...` whose out-of-place result is `result`, with PyTorch's
// checks: the result must not broadcast beyond self ("output with shape [1] doesn't match the
// broadcast shape [3]") and its dtype must be castable to self's ("result type Float can't be
// cast to the desired output type Long"). When self's storage is writable, the values are
// written into it (every alias sees them) and self is returned; when it is a read-only view
// of a model file, a new tensor of self's dtype is returned instead (copy-on-write: aliases
// of the mapped parameter keep the old values).
tensor::Tensor assign_in_place(const tensor::Tensor& self, const tensor::Tensor& result);

// PyTorch's check before writing into `self`: RuntimeError "unsupported operation: more
// than one element of the written-to tensor refers to a single memory location. Please
// clone() the tensor before performing the operation." for expanded tensors.
void check_no_internal_overlap(const tensor::Tensor& self);

// TensorImpl::compute_non_overlapping_and_dense: some permutation of the dimensions is
// contiguous (size-0/1 dimensions are ignored).
bool is_non_overlapping_and_dense(const tensor::Tensor& t);

// PyTorch's assert_no_partial_overlap before writing into `self` from `other`: RuntimeError
// "unsupported operation: some elements of the input tensor and the written-to tensor refer
// to a single memory location. ..." when both are dense views of one storage whose bytes
// overlap without being the same elements (x[1:].add_(x[:-1])). Tensors it cannot judge
// cheaply (not dense) pass, as in PyTorch.
void check_no_partial_overlap(const tensor::Tensor& self, const tensor::Tensor& other);

// Element i (row-major) of a contiguous tensor of a real dtype as a double; bool is 0 or 1.
// float16/bfloat16 fail as dispatch_all does.
double element_as_double(const tensor::Tensor& contiguous, std::int64_t i);

}  // namespace symbolite::ops
