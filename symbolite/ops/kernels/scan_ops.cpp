// Running reductions along one dimension: cumsum, cumprod (and their in-place forms), cummax,
// cummin and logcumsumexp. As PyTorch's CPU kernels: the input is converted to the result dtype
// first (integers and bool give int64 unless a dtype is asked for), floating sums and products run
// in double and each prefix is rounded to the result dtype; cummax / cummin take an element equal
// to the running extreme (its index is the later one), and a NaN once seen stays.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/registry/kernel_families.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// Contiguous `t` seen as outer x size x inner around dimension `dim`.
struct Lines {
  std::int64_t outer = 1, size = 1, inner = 1;
};

Lines lines_of(const Tensor& t, std::int64_t dim) {
  Lines l;
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    const std::int64_t n = t.sizes()[static_cast<std::size_t>(d)];
    if (d < dim) l.outer *= n;
    if (d == dim) l.size = n;
    if (d > dim) l.inner *= n;
  }
  return l;
}

// Calls visit(first element offset) for every line along dim; elements are `inner` apart.
template <typename Visit>
void for_each_line(const Lines& l, Visit visit) {
  for (std::int64_t o = 0; o < l.outer; ++o) {
    for (std::int64_t i = 0; i < l.inner; ++i) visit(o * l.size * l.inner + i);
  }
}

DType scan_dtype(const Tensor& self, const IValue& dtype) {
  if (!dtype.is_none()) return *dtype_arg(dtype);
  return is_floating(self.dtype()) ? self.dtype() : DType::kInt64;
}

template <bool kProduct>
Tensor cumulative(const Tensor& self, std::int64_t dim, DType dtype) {
  const std::int64_t d = wrap_dim(dim, self.dim());
  const Tensor x = to_dtype(self, dtype);  // contiguous, of the result dtype
  Tensor out = Tensor::uninitialized(x.sizes(), dtype);
  const Lines l = lines_of(x, d);
  dispatch_all(dtype, kProduct ? "cumprod_cpu" : "cumsum_cpu", [&](auto tag) {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double,
                                   std::conditional_t<std::is_same_v<T, bool>, bool, std::int64_t>>;
    const T* in = x.template data<T>();
    T* dst = out.template mutable_data<T>();
    for_each_line(l, [&](std::int64_t first) {
      Acc acc = kProduct ? Acc(1) : Acc(0);
      for (std::int64_t k = 0; k < l.size; ++k) {
        const std::int64_t at = first + k * l.inner;
        if constexpr (std::is_same_v<T, bool>) {
          acc = kProduct ? (acc && in[at]) : (acc || in[at]);
        } else if constexpr (kProduct) {
          acc = wrapping_mul(acc, static_cast<Acc>(in[at]));
        } else {
          acc = wrapping_add(acc, static_cast<Acc>(in[at]));
        }
        dst[at] = static_cast<T>(acc);
      }
    });
  });
  return out;
}

// cumsum(self, dim, *, dtype=None) / cumprod
template <bool kProduct>
void cumulative_op(Stack& s) {
  IValue dtype = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  s.emplace_back(cumulative<kProduct>(t, dim.to_int(), scan_dtype(t, dtype)));
}

// cumsum_(self, dim, *, dtype=None): into self, in self's dtype unless a dtype is asked for.
template <bool kProduct>
void cumulative_op_(Stack& s) {
  IValue dtype = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const DType compute = dtype.is_none() ? t.dtype() : *dtype_arg(dtype);
  Tensor result = cumulative<kProduct>(t, dim.to_int(), compute);
  push_in_place(s, self, result.dtype() == t.dtype() ? result : to_dtype(result, t.dtype()));
}

// cummax / cummin(self, dim) -> (values, indices)
template <bool kMax>
void cumulative_extreme(Stack& s) {
  IValue dim_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const std::int64_t d = wrap_dim(dim_v.to_int(), t.dim());
  const Tensor x = t.contiguous();
  Tensor values = Tensor::uninitialized(x.sizes(), x.dtype());
  Tensor indices = Tensor::uninitialized(x.sizes(), DType::kInt64);
  const Lines l = lines_of(x, d);
  dispatch_all(x.dtype(), kMax ? "cummax_cpu" : "cummin_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.template data<T>();
    T* val = values.template mutable_data<T>();
    std::int64_t* idx = indices.mutable_data<std::int64_t>();
    for_each_line(l, [&](std::int64_t first) {
      if (l.size == 0) return;  // an empty dimension: no first element to start from
      T best = in[first];
      std::int64_t best_at = 0;
      for (std::int64_t k = 0; k < l.size; ++k) {
        const std::int64_t at = first + k * l.inner;
        const T v = in[at];
        bool take = kMax ? v >= best : v <= best;
        if constexpr (std::is_floating_point_v<T>) {
          take = !std::isnan(best) && (std::isnan(v) || take);
        }
        if (take) {
          best = v;
          best_at = k;
        }
        val[at] = best;
        idx[at] = best_at;
      }
    });
  });
  s.emplace_back(std::move(values));
  s.emplace_back(std::move(indices));
}

// logcumsumexp(self, dim): log of the running sum of exp, each step max + log1p(exp(min -
// max)) in double (equal infinities stay themselves), floating only.
void logcumsumexp(Stack& s) {
  IValue dim_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const std::int64_t d = wrap_dim(dim_v.to_int(), t.dim());
  const Tensor x = t.contiguous();
  Tensor out = Tensor::uninitialized(x.sizes(), x.dtype());
  const Lines l = lines_of(x, d);
  dispatch_floating(x.dtype(), "logcumsumexp_out_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.template data<T>();
    T* dst = out.template mutable_data<T>();
    for_each_line(l, [&](std::int64_t first) {
      double acc = -std::numeric_limits<double>::infinity();
      for (std::int64_t k = 0; k < l.size; ++k) {
        const std::int64_t at = first + k * l.inner;
        const double v = static_cast<double>(in[at]);
        const double lo = std::min(acc, v), hi = std::max(acc, v);
        if (std::isnan(v) || std::isnan(acc)) {
          acc = std::numeric_limits<double>::quiet_NaN();
        } else if (lo != hi || std::isfinite(lo)) {
          acc = hi + std::log1p(std::exp(lo - hi));
        }
        dst[at] = static_cast<T>(acc);
      }
    });
  });
  s.emplace_back(std::move(out));
}

}  // namespace

void register_scan_ops(OperatorRegistry& r) {
  IValue none;
  r.add({"aten::cumsum", 3, {none}, cumulative_op<false>});
  r.add({"aten::cumprod", 3, {none}, cumulative_op<true>});
  r.add({"aten::cumsum_", 3, {none}, cumulative_op_<false>});
  r.add({"aten::cumprod_", 3, {none}, cumulative_op_<true>});
  r.add({"aten::cummax", 2, {}, cumulative_extreme<true>});
  r.add({"aten::cummin", 2, {}, cumulative_extreme<false>});
  r.add({"aten::logcumsumexp", 2, {}, logcumsumexp});
}

}  // namespace symbolite::ops
