// Reductions a statistic needs: var and std (with unbiased or an integer correction), var_mean
// and std_mean, logsumexp, prod and count_nonzero, over any set of dimensions. Floating sums
// run in double and are rounded once, as PyTorch's Welford reductions keep double for float32,
// so results agree with PyTorch's to rounding; var divides by max(0, N - correction) (N = 1
// unbiased gives NaN, as in PyTorch).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/contiguous_sum.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// The reduced shape of `t` over `mask` and, per input dimension, the strides of the
// keepdim-shaped result (0 at reduced dimensions).
struct Reduced {
  Ints sizes;        // the result's
  Ints out_strides;  // one per input dimension
  std::int64_t groups = 1, count = 1;
};

Reduced reduced(const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  Reduced r;
  Ints keep;
  for (std::size_t d = 0; d < t.sizes().size(); ++d) {
    keep.push_back(mask[d] ? 1 : t.sizes()[d]);
    if (!mask[d]) {
      r.sizes.push_back(t.sizes()[d]);
      r.groups *= t.sizes()[d];
    } else {
      if (keepdim) r.sizes.push_back(1);
      r.count *= t.sizes()[d];
    }
  }
  r.out_strides = tensor::contiguous_strides(keep);
  // A 0-dim tensor's mask has one entry (dim 0 or -1 names it) but the tensor no dimension.
  for (std::size_t d = 0; d < keep.size(); ++d) {
    if (mask[d]) r.out_strides[d] = 0;
  }
  return r;
}

// Calls f(value as double, result index) for every element of floating or integral t.
template <typename F>
void for_each_value(const Tensor& t, const Reduced& r, F f) {
  dispatch_all(t.dtype(), "reduce", [&](auto tag) {
    using T = decltype(tag);
    const T* in = t.template data<T>();
    std::array<const std::int64_t*, 2> strides{t.strides().data(), r.out_strides.data()};
    for_each_offset<2>(t.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
      f(static_cast<double>(in[o[0]]), static_cast<std::size_t>(o[1]));
    });
  });
}

std::vector<bool> dims_of(const Tensor& t, const IValue& dim) {
  return dim_mask(dim.is_none() ? Ints{} : int_list_arg(dim), t.dim());
}

// (var or std, mean) of t over `mask`, each of t's dtype.
std::pair<Tensor, Tensor> moments(const Tensor& t, const std::vector<bool>& mask, double correction,
                                  bool keepdim, bool take_sqrt) {
  if (!is_floating(t.dtype())) fail("std and var only support floating point and complex dtypes");
  const Reduced r = reduced(t, mask, keepdim);
  std::vector<double> sum(static_cast<std::size_t>(r.groups), 0.0);
  const auto n = static_cast<double>(r.count);
  std::vector<double> mean(sum.size());
  std::vector<double> squares(sum.size(), 0.0);
  if (r.count > 0 && reduces_trailing_run(t, mask)) {
    // Each group one contiguous run (x.std(-1)): its sum and squares in partial sums that
    // vectorize, groups across threads.
    dispatch_floating(t.dtype(), "std_var", [&](auto tag) {
      using T = decltype(tag);
      const T* in = t.template data<T>();
      parallel_for(r.groups, std::max<std::int64_t>(1, 16384 / r.count),
                   [&](std::int64_t first, std::int64_t last) {
                     for (std::int64_t g = first; g < last; ++g) {
                       const T* run = in + g * r.count;
                       const auto i = static_cast<std::size_t>(g);
                       sum[i] = contiguous_sum(run, r.count);
                       mean[i] = sum[i] / n;
                       squares[i] = squares_about(run, r.count, mean[i]);
                     }
                   });
    });
  } else {
    for_each_value(t, r, [&](double v, std::size_t i) { sum[i] += v; });
    for (std::size_t i = 0; i < sum.size(); ++i) mean[i] = sum[i] / n;
    for_each_value(t, r,
                   [&](double v, std::size_t i) { squares[i] += (v - mean[i]) * (v - mean[i]); });
  }
  Tensor spread = Tensor::uninitialized(r.sizes, t.dtype());
  Tensor average = Tensor::uninitialized(r.sizes, t.dtype());
  const double divisor = std::max(0.0, n - correction);
  dispatch_floating(t.dtype(), "std_var", [&](auto tag) {
    using T = decltype(tag);
    T* v = spread.template mutable_data<T>();
    T* m = average.template mutable_data<T>();
    for (std::size_t i = 0; i < sum.size(); ++i) {
      const double var =
          r.count == 0 ? std::numeric_limits<double>::quiet_NaN() : squares[i] / divisor;
      v[i] = static_cast<T>(take_sqrt ? std::sqrt(var) : var);
      m[i] = static_cast<T>(r.count == 0 ? std::numeric_limits<double>::quiet_NaN() : mean[i]);
    }
  });
  return {spread, average};
}

double correction_of(const IValue& correction) {
  return correction.is_none() ? 1.0 : static_cast<double>(correction.to_int());
}

// var(self, unbiased=True) / std: over every element.
template <bool kSqrt, bool kWithMean>
void moments_all(Stack& s) {
  IValue unbiased = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  auto [spread, mean] =
      moments(t, dim_mask({}, t.dim()), unbiased.to_bool() ? 1.0 : 0.0, false, kSqrt);
  s.emplace_back(std::move(spread));
  if (kWithMean) s.emplace_back(std::move(mean));
}

// var.dim(self, dim, unbiased=True, keepdim=False) / std.dim / var_mean.dim / std_mean.dim
template <bool kSqrt, bool kWithMean>
void moments_dim(Stack& s) {
  IValue keepdim = pop(s), unbiased = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  auto [spread, mean] =
      moments(t, dims_of(t, dim), unbiased.to_bool() ? 1.0 : 0.0, keepdim.to_bool(), kSqrt);
  s.emplace_back(std::move(spread));
  if (kWithMean) s.emplace_back(std::move(mean));
}

// var.correction(self, dim, *, correction=None, keepdim=False) and the others'.
template <bool kSqrt, bool kWithMean>
void moments_correction(Stack& s) {
  IValue keepdim = pop(s), correction = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  auto [spread, mean] =
      moments(t, dims_of(t, dim), correction_of(correction), keepdim.to_bool(), kSqrt);
  s.emplace_back(std::move(spread));
  if (kWithMean) s.emplace_back(std::move(mean));
}

// logsumexp(self, dim, keepdim=False): log(sum(exp(x - m))) + m with m the maximum (0 where
// it is infinite), integers as float32.
void logsumexp(Stack& s) {
  IValue keepdim = pop(s), dim = pop(s), self = pop(s);
  const Tensor& in = self.to_tensor();
  const Tensor t = is_floating(in.dtype()) ? in : to_dtype(in, DType::kFloat32);
  const Reduced r = reduced(t, dim_mask(int_list_arg(dim), t.dim()), keepdim.to_bool());
  Tensor out = Tensor::uninitialized(r.sizes, t.dtype());
  dispatch_floating(t.dtype(), "logsumexp", [&](auto tag) {
    using T = decltype(tag);
    const T* x = t.template data<T>();
    std::vector<T> maxima(static_cast<std::size_t>(r.groups), -std::numeric_limits<T>::infinity());
    std::vector<char> nan(maxima.size(), 0);
    std::array<const std::int64_t*, 2> strides{t.strides().data(), r.out_strides.data()};
    for_each_offset<2>(t.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
      const auto i = static_cast<std::size_t>(o[1]);
      if (std::isnan(x[o[0]])) nan[i] = 1;
      maxima[i] = std::max(maxima[i], x[o[0]]);
    });
    for (std::size_t i = 0; i < maxima.size(); ++i) {
      if (std::isinf(maxima[i])) maxima[i] = 0;
    }
    std::vector<double> sum(maxima.size(), 0.0);
    for_each_offset<2>(t.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
      const auto i = static_cast<std::size_t>(o[1]);
      sum[i] += static_cast<double>(std::exp(static_cast<T>(x[o[0]] - maxima[i])));
    });
    T* dst = out.template mutable_data<T>();
    for (std::size_t i = 0; i < sum.size(); ++i) {
      dst[i] = nan[i] ? std::numeric_limits<T>::quiet_NaN()
                      : static_cast<T>(std::log(static_cast<T>(sum[i])) + maxima[i]);
    }
  });
  s.emplace_back(std::move(out));
}

// prod over `mask`: integers and bool as int64 unless a dtype is asked for.
Tensor prod_impl(const Tensor& self, const std::vector<bool>& mask, bool keepdim,
                 const IValue& dtype_v) {
  std::optional<DType> dtype = dtype_arg(dtype_v);
  const DType result = dtype ? *dtype : is_floating(self.dtype()) ? self.dtype() : DType::kInt64;
  const Tensor t = self.dtype() == result ? self : to_dtype(self, result);
  const Reduced r = reduced(t, mask, keepdim);
  Tensor out = Tensor::uninitialized(r.sizes, result);
  dispatch_all(result, "prod_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* acc = out.template mutable_data<T>();
    std::fill_n(acc, r.groups, T(1));
    const T* in = t.template data<T>();
    std::array<const std::int64_t*, 2> strides{t.strides().data(), r.out_strides.data()};
    for_each_offset<2>(t.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
      T& a = acc[o[1]];
      if constexpr (std::is_same_v<T, bool>) {
        a = a && in[o[0]];
      } else {
        a = wrapping_mul(a, in[o[0]]);
      }
    });
  });
  return out;
}

// prod(self, *, dtype=None)
void prod(Stack& s) {
  IValue dtype = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  s.emplace_back(prod_impl(t, dim_mask({}, t.dim()), false, dtype));
}

// prod.dim_int(self, dim, keepdim=False, *, dtype=None)
void prod_dim(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  s.emplace_back(prod_impl(t, dim_mask({dim.to_int()}, t.dim()), keepdim.to_bool(), dtype));
}

// count_nonzero(self, dim=None) and .dim_IntList: int64 counts.
Tensor count_nonzero_impl(const Tensor& t, const Ints& dims) {
  const Reduced r = reduced(t, dim_mask(dims, t.dim()), false);
  Tensor out = Tensor::empty(r.sizes, DType::kInt64);
  std::int64_t* dst = out.mutable_data<std::int64_t>();
  dispatch_all(t.dtype(), "count_nonzero_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* in = t.template data<T>();
    std::array<const std::int64_t*, 2> strides{t.strides().data(), r.out_strides.data()};
    for_each_offset<2>(t.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
      if (in[o[0]] != T{}) ++dst[o[1]];
    });
  });
  return out;
}

void count_nonzero(Stack& s) {
  IValue dim = pop(s), self = pop(s);
  s.emplace_back(count_nonzero_impl(self.to_tensor(), dim.is_none() ? Ints{} : Ints{dim.to_int()}));
}

void count_nonzero_dims(Stack& s) {
  IValue dims = pop(s), self = pop(s);
  s.emplace_back(count_nonzero_impl(self.to_tensor(), int_list_arg(dims)));
}

}  // namespace

void register_statistics_ops(OperatorRegistry& r) {
  const IValue none, yes(true), no(false);
  r.add({"aten::var", 2, {yes}, moments_all<false, false>});
  r.add({"aten::std", 2, {yes}, moments_all<true, false>});
  r.add({"aten::var_mean", 2, {yes}, moments_all<false, true>});
  r.add({"aten::std_mean", 2, {yes}, moments_all<true, true>});
  r.add({"aten::var.dim", 4, {yes, no}, moments_dim<false, false>});
  r.add({"aten::std.dim", 4, {yes, no}, moments_dim<true, false>});
  r.add({"aten::var_mean.dim", 4, {yes, no}, moments_dim<false, true>});
  r.add({"aten::std_mean.dim", 4, {yes, no}, moments_dim<true, true>});
  r.add({"aten::var.correction", 4, {no}, moments_correction<false, false>});
  r.add({"aten::std.correction", 4, {no}, moments_correction<true, false>});
  r.add({"aten::var_mean.correction", 4, {no}, moments_correction<false, true>});
  r.add({"aten::std_mean.correction", 4, {no}, moments_correction<true, true>});
  r.add({"aten::logsumexp", 3, {no}, logsumexp});
  r.add({"aten::prod", 2, {none}, prod});
  r.add({"aten::prod.dim_int", 4, {no, none}, prod_dim});
  r.add({"aten::count_nonzero", 2, {none}, count_nonzero});
  r.add({"aten::count_nonzero.dim_IntList", 2, {}, count_nonzero_dims});
}

}  // namespace symbolite::ops
