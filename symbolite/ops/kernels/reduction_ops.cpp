// Reductions over tensor dimensions: sum, mean, amax, amin, max and min (full and along a dim),
// argmax and argmin.
//
// Sums accumulate in double (floating inputs) or int64 (integral and bool inputs) and are
// rounded to the result dtype once, so float32 results agree with PyTorch's cascade sums to
// rounding.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/contiguous_sum.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/cpu/element_runs.h"
#include "symbolite/ops/cpu/run_extremum.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// The reduced shape (size 1 at reduced dims when keepdim, else dropped) and, for the input's
// dimensions, the strides of the keepdim-shaped output (0 at reduced dims).
struct ReducedShape {
  std::vector<std::int64_t> out_sizes;
  std::vector<std::int64_t> keep_sizes;
  std::vector<std::int64_t> out_strides;  // one per input dim
};

ReducedShape reduced_shape(const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  ReducedShape r;
  for (std::size_t d = 0; d < t.sizes().size(); ++d) {
    r.keep_sizes.push_back(mask[d] ? 1 : t.sizes()[d]);
    if (!mask[d])
      r.out_sizes.push_back(t.sizes()[d]);
    else if (keepdim)
      r.out_sizes.push_back(1);
  }
  r.out_strides = tensor::contiguous_strides(r.keep_sizes);
  for (std::size_t d = 0; d < mask.size() && d < r.out_strides.size(); ++d) {
    if (mask[d]) r.out_strides[d] = 0;
  }
  return r;
}

// A contiguous t reduced over one run of dimensions with dimensions after it kept (sum over
// the channels of NCHW): t viewed as (outer, len, inner), inner > 1; nullopt otherwise.
struct MiddleRun {
  std::int64_t outer = 1, len = 1, inner = 1;
};
std::optional<MiddleRun> reduces_middle_run(const Tensor& t, const std::vector<bool>& mask) {
  if (!t.is_contiguous() || t.dim() == 0 || mask.back()) return std::nullopt;
  const auto first =
      static_cast<std::size_t>(std::find(mask.begin(), mask.end(), true) - mask.begin());
  if (first == mask.size()) return std::nullopt;
  std::size_t end = first;
  while (end < mask.size() && mask[end]) ++end;
  if (std::find(mask.begin() + static_cast<std::ptrdiff_t>(end), mask.end(), true) != mask.end()) {
    return std::nullopt;  // a second run
  }
  MiddleRun run;
  for (std::size_t d = 0; d < mask.size(); ++d) {
    (d < first ? run.outer : d < end ? run.len : run.inner) *= t.sizes()[d];
  }
  return run;
}

// sum (or mean) of `self` (already of the result dtype) over the dims in `mask`.
Tensor sum_impl(const Tensor& self, const std::vector<bool>& mask, bool keepdim, bool mean) {
  ReducedShape shape = reduced_shape(self, mask, keepdim);
  std::int64_t out_numel = tensor::checked_numel(shape.out_sizes);
  std::int64_t count = out_numel == 0 ? 0 : self.numel() / std::max<std::int64_t>(out_numel, 1);
  if (self.dim() == 0) count = 1;
  Tensor out = Tensor::uninitialized(shape.out_sizes, self.dtype());
  dispatch_all(self.dtype(), "sum_cpu", [&](auto tag) {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
    std::vector<Acc> acc(static_cast<std::size_t>(out_numel), Acc{});
    const T* in = self.template data<T>();
    if (std::is_floating_point_v<T> && reduces_trailing_run(self, mask) && out_numel > 0) {
      // Each result is one contiguous run (mean over H and W of NCHW): partial sums that
      // vectorize, results split across threads.
      parallel_for(out_numel, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, count)),
                   [&](std::int64_t first, std::int64_t last) {
                     for (std::int64_t i = first; i < last; ++i) {
                       acc[static_cast<std::size_t>(i)] =
                           static_cast<Acc>(contiguous_sum(in + i * count, count));
                     }
                   });
    } else if (const auto run = std::is_floating_point_v<T> && out_numel > 0
                                    ? reduces_middle_run(self, mask)
                                    : std::nullopt) {
      // Each result sums one element of every inner row, in the order the general loop
      // below takes them: rows of results, each row's additions in vectors, blocks of
      // results across threads.
      constexpr std::int64_t kBlock = 1024;
      const std::int64_t blocks = (run->inner + kBlock - 1) / kBlock;
      parallel_for(run->outer * blocks, 1, [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t unit = first; unit < last; ++unit) {
          const std::int64_t o = unit / blocks, i0 = unit % blocks * kBlock;
          const std::int64_t m = std::min(kBlock, run->inner - i0);
          Acc* sums = acc.data() + o * run->inner + i0;
          if constexpr (std::is_floating_point_v<T>) {
            accumulate(in + o * run->len * run->inner + i0, run->inner, run->len, sums, m);
          }  // (integer sums take the general loop)
        }
      });
    } else {
      std::array<const std::int64_t*, 2> strides{self.strides().data(), shape.out_strides.data()};
      for_each_offset<2>(self.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
        Acc& sum = acc[static_cast<std::size_t>(o[1])];
        sum = wrapping_add(sum, static_cast<Acc>(in[o[0]]));
      });
    }
    T* dst = out.template mutable_data<T>();
    for (std::size_t i = 0; i < acc.size(); ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        dst[i] =
            mean ? static_cast<T>(acc[i] / static_cast<double>(count)) : static_cast<T>(acc[i]);
      } else {
        dst[i] = convert<T>(acc[i]);
      }
    }
  });
  return out;
}

DType sum_dtype(const Tensor& self, const std::optional<DType>& dtype) {
  if (dtype) return *dtype;
  return is_floating(self.dtype()) ? self.dtype() : DType::kInt64;
}

DType mean_dtype(const Tensor& self, const std::optional<DType>& dtype) {
  if (dtype) {
    if (!is_floating(*dtype)) {
      fail(
          fmt::format("mean(): could not infer output dtype. Optional dtype must be either a "
                      "floating point or complex dtype. Got: {}",
                      tensor::scalar_type_name(*dtype)));
    }
    return *dtype;
  }
  if (!is_floating(self.dtype())) {
    fail(
        fmt::format("mean(): could not infer output dtype. Input dtype must be either a "
                    "floating point or complex dtype. Got: {}",
                    tensor::scalar_type_name(self.dtype())));
  }
  return self.dtype();
}

Tensor reduce_sum(const Tensor& self, const std::optional<std::vector<std::int64_t>>& dims,
                  bool keepdim, DType dtype, bool mean) {
  std::vector<bool> mask = dim_mask(dims.value_or(std::vector<std::int64_t>{}), self.dim());
  Tensor in = self.dtype() == dtype ? self : to_dtype(self, dtype);
  if (in.dtype() == DType::kFloat16 || in.dtype() == DType::kBFloat16) {
    not_implemented(mean ? "mean_cpu" : "sum_cpu", in.dtype());
  }
  return sum_impl(in, mask, keepdim, mean);
}

void sum(Stack& s) {
  IValue dtype = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  s.emplace_back(reduce_sum(t, std::nullopt, false, sum_dtype(t, dtype_arg(dtype)), false));
}

void sum_dim(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  s.emplace_back(reduce_sum(t, optional_int_list_arg(dim), keepdim.to_bool(),
                            sum_dtype(t, dtype_arg(dtype)), false));
}

void mean(Stack& s) {
  IValue dtype = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  s.emplace_back(reduce_sum(t, std::nullopt, false, mean_dtype(t, dtype_arg(dtype)), true));
}

void mean_dim(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  s.emplace_back(reduce_sum(t, optional_int_list_arg(dim), keepdim.to_bool(),
                            mean_dtype(t, dtype_arg(dtype)), true));
}

// Whether `x` replaces the running maximum `m`: greater, or the first NaN (NaN propagates).
template <typename T>
bool takes_max(T x, T m) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(m)) return false;
    if (std::isnan(x)) return true;
  }
  return x > m;
}

// Whether `x` replaces the running minimum `m`: smaller, or the first NaN.
template <typename T>
bool takes_min(T x, T m) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(m)) return false;
    if (std::isnan(x)) return true;
  }
  return x < m;
}

// The maximum (kMax) or minimum of n contiguous floating values: floats in AVX-512 vectors
// where the CPU has them (ops/cpu/run_extremum.h), else eight running extremes (i modulo 8)
// by std::max / std::min, which compile to branch-free MAXSS / MINSS where the general loop's
// comparison branch mispredicts on noise, combined in order; a NaN, which they would drop, is
// looked for apart and returned as the first the general loop meets.
template <bool kMax, typename T>
T run_extremum(const T* in, std::int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    if (n > 0 && has_vector_extremum()) {
      const RunExtremum e = kMax ? avx512_max_f32(in, n) : avx512_min_f32(in, n);
      if (!e.nan) return e.value;
      return *std::find_if(in, in + n, [](T x) { return std::isnan(x); });
    }
  }
  constexpr int kParts = 8;
  T part[kParts];
  std::fill_n(part, kParts,
              kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity());
  bool nan = false;
  std::int64_t i = 0;
  for (; i + kParts <= n; i += kParts) {
    for (int j = 0; j < kParts; ++j) {
      const T x = in[i + j];
      nan |= x != x;  // NOLINT(misc-redundant-expression): the NaN test, vectorizable
      part[j] = kMax ? std::max(part[j], x) : std::min(part[j], x);
    }
  }
  for (; i < n; ++i) {
    nan |= in[i] != in[i];  // NOLINT(misc-redundant-expression)
    part[0] = kMax ? std::max(part[0], in[i]) : std::min(part[0], in[i]);
  }
  if (nan) return *std::find_if(in, in + n, [](T x) { return std::isnan(x); });
  T best = part[0];
  for (int j = 1; j < kParts; ++j) best = kMax ? std::max(best, part[j]) : std::min(best, part[j]);
  return best;
}

// The maximum (kMax) or minimum of `self` over the dims in `mask`.
template <bool kMax>
Tensor extremum_impl(const Tensor& self, const std::vector<bool>& mask, bool keepdim,
                     std::string_view name) {
  if (self.numel() == 0) {
    for (std::size_t d = 0; d < self.sizes().size(); ++d) {
      if (mask[d] && self.sizes()[d] == 0) {
        throw OpError(
            "IndexError",
            fmt::format("{}(): Expected reduction dim {} to have non-zero size.", name, d));
      }
    }
  }
  ReducedShape shape = reduced_shape(self, mask, keepdim);
  std::int64_t out_numel = tensor::checked_numel(shape.out_sizes);
  Tensor out = Tensor::uninitialized(shape.out_sizes, self.dtype());
  dispatch_all(self.dtype(), kMax ? "amax_cpu" : "amin_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* acc = out.template mutable_data<T>();
    const T* in = self.template data<T>();
    if constexpr (std::is_floating_point_v<T>) {
      // Each result one contiguous run (amax over the last dimension, max of everything):
      // results across threads.
      if (reduces_trailing_run(self, mask) && out_numel > 0) {
        const std::int64_t count = self.numel() / out_numel;
        parallel_for(out_numel, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, count)),
                     [&](std::int64_t first, std::int64_t last) {
                       for (std::int64_t r = first; r < last; ++r) {
                         acc[r] = run_extremum<kMax>(in + r * count, count);
                       }
                     });
        return;
      }
    }
    std::vector<char> seen(static_cast<std::size_t>(out_numel), 0);
    std::array<const std::int64_t*, 2> strides{self.strides().data(), shape.out_strides.data()};
    for_each_offset<2>(self.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
      auto i = static_cast<std::size_t>(o[1]);
      T x = in[o[0]];
      if (!seen[i] || (kMax ? takes_max(x, acc[i]) : takes_min(x, acc[i]))) {
        acc[i] = x;
        seen[i] = 1;
      }
    });
  });
  return out;
}

Tensor amax_impl(const Tensor& self, const std::vector<bool>& mask, bool keepdim,
                 std::string_view name) {
  return extremum_impl<true>(self, mask, keepdim, name);
}

void amax(Stack& s) {
  IValue keepdim = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  std::vector<std::int64_t> dims = int_list_arg(dim);
  if (dims.empty() && t.numel() == 0) {
    fail(
        "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
        "reduction dim with the 'dim' argument.");
  }
  s.emplace_back(amax_impl(t, dim_mask(dims, t.dim()), keepdim.to_bool(), "amax"));
}

void amin(Stack& s) {
  IValue keepdim = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  std::vector<std::int64_t> dims = int_list_arg(dim);
  if (dims.empty() && t.numel() == 0) {
    fail(
        "amin(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
        "reduction dim with the 'dim' argument.");
  }
  s.emplace_back(extremum_impl<false>(t, dim_mask(dims, t.dim()), keepdim.to_bool(), "amin"));
}

void max_all(Stack& s) {
  const Tensor t = pop(s).to_tensor();
  if (t.numel() == 0) {
    fail(
        "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
        "reduction dim with the 'dim' argument.");
  }
  s.emplace_back(amax_impl(t, dim_mask({}, t.dim()), false, "max"));
}

void min_all(Stack& s) {
  const Tensor t = pop(s).to_tensor();
  if (t.numel() == 0) {
    fail(
        "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
        "reduction dim with the 'dim' argument.");
  }
  s.emplace_back(extremum_impl<false>(t, dim_mask({}, t.dim()), false, "min"));
}

// A reduction along one dimension as loops: an outer walk over every other dimension, and
// a run of `len` elements `step` apart along it; `out_sizes` is the result's shape.
struct AlongDim {
  std::vector<std::int64_t> outer_sizes, outer_strides, out_sizes;
  std::int64_t len = 1;
  std::int64_t step = 0;
};

// `dim` of `t`, which must not be empty when t has dimensions ("<op>(): Expected reduction
// dim 1 to have non-zero size.", an IndexError).
AlongDim along_dim(const Tensor& t, std::int64_t dim, bool keepdim, std::string_view op) {
  if (t.dim() > 0 && t.sizes()[static_cast<std::size_t>(dim)] == 0) {
    throw OpError("IndexError",
                  fmt::format("{}(): Expected reduction dim {} to have non-zero size.", op, dim));
  }
  AlongDim a;
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    auto ud = static_cast<std::size_t>(d);
    if (d == dim) {
      a.len = t.sizes()[ud];
      a.step = t.strides()[ud];
      if (keepdim) a.out_sizes.push_back(1);
    } else {
      a.outer_sizes.push_back(t.sizes()[ud]);
      a.outer_strides.push_back(t.strides()[ud]);
      a.out_sizes.push_back(t.sizes()[ud]);
    }
  }
  return a;
}

// Calls visit(value, index) with the first maximum (kMax) or minimum of each run (the first
// NaN, if any), in the order of the result's elements.
template <bool kMax, typename T, typename Visit>
void first_extreme_along(const T* data, const AlongDim& a, Visit visit) {
  std::array<const std::int64_t*, 1> strides{a.outer_strides.data()};
  for_each_offset<1>(a.outer_sizes, strides, [&](const std::array<std::int64_t, 1>& o) {
    T best = data[o[0]];
    std::int64_t at = 0;
    for (std::int64_t k = 1; k < a.len; ++k) {
      T x = data[o[0] + k * a.step];
      if (kMax ? takes_max(x, best) : takes_min(x, best)) {
        best = x;
        at = k;
      }
    }
    visit(best, at);
  });
}

// For the n positions of rows `len` rows of `stride` elements apart from `data`: best[i] and
// at[i] the first maximum (kMax) or minimum of data[k * stride + i] over k and its k (the first
// NaN, if any; takes_max's choice written without branches, so the positions go in vectors).
template <bool kMax, typename T>
SYMBOLITE_ELEMENT_CLONES void extreme_rows(const T* data, std::int64_t len, std::int64_t stride,
                                           std::int64_t n, T* best, std::int64_t* at) {
  for (std::int64_t i = 0; i < n; ++i) {
    best[i] = data[i];
    at[i] = 0;
  }
  for (std::int64_t k = 1; k < len; ++k) {
    const T* row = data + k * stride;
    for (std::int64_t i = 0; i < n; ++i) {
      const T x = row[i], m = best[i];
      // NOLINTNEXTLINE(misc-redundant-expression): x != x and m == m are the NaN tests
      const bool take = m == m && (x != x || (kMax ? x > m : x < m));
      best[i] = take ? x : m;
      at[i] = take ? k : at[i];
    }
  }
}

// Runs extreme_rows over a contiguous t reduced along `dim`, not its last: t viewed as
// (outer, a.len, inner), blocks of 512 positions across threads, results into the contiguous
// best and at (best may be a scratch buffer).
template <bool kMax, typename T>
void extreme_rows_of(const Tensor& t, const AlongDim& a, T* best, std::int64_t* at) {
  const std::int64_t inner = a.step, outer = t.numel() / (a.len * inner);
  constexpr std::int64_t kBlock = 512;
  const std::int64_t blocks = (inner + kBlock - 1) / kBlock;
  const T* data = t.template data<T>();
  parallel_for(outer * blocks, std::max<std::int64_t>(1, 16384 / (a.len * kBlock)),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t unit = first; unit < last; ++unit) {
                   const std::int64_t o = unit / blocks, i0 = unit % blocks * kBlock;
                   const std::int64_t place = o * inner + i0;
                   extreme_rows<kMax>(data + o * a.len * inner + i0, a.len, inner,
                                      std::min(kBlock, inner - i0), best + place, at + place);
                 }
               });
}

// Whether extreme_rows_of takes t along `a`: contiguous, not empty, the dimension not its last
// (a run of positions after it: a.step > 1).
bool along_rows(const Tensor& t, const AlongDim& a) {
  return t.is_contiguous() && t.numel() > 0 && a.step > 1;
}

// argmax / argmin(self, dim=None, keepdim=False): int64 index of the first maximum (minimum;
// of the first NaN if any) along `dim`, or in the flattened tensor when dim is None (keepdim
// then keeps every dimension, as size 1).
template <bool kMax>
void arg_extreme(Stack& s) {
  IValue keepdim_v = pop(s), dim_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const char* name = kMax ? "argmax" : "argmin";
  bool keepdim = keepdim_v.to_bool();
  Tensor in = t;
  AlongDim a;
  if (dim_v.is_none()) {
    if (t.numel() == 0) {
      throw OpError("IndexError",
                    fmt::format("{}(): Expected reduction dim to be specified for input.numel() "
                                "== 0.",
                                name));
    }
    in = t.contiguous();  // one run over every element
    a.len = t.numel();
    a.step = 1;
    if (keepdim) a.out_sizes.assign(t.sizes().size(), 1);
  } else {
    a = along_dim(t, wrap_dim(dim_v.to_int(), t.dim()), keepdim, name);
  }
  Tensor indices = Tensor::uninitialized(a.out_sizes, DType::kInt64);
  const bool rows = along_rows(t, a);
  dispatch_numeric(t.dtype(), kMax ? "argmax_cpu" : "argmin_cpu", [&](auto tag) {
    using T = decltype(tag);
    std::int64_t* idx = indices.mutable_data<std::int64_t>();
    if constexpr (!std::is_same_v<T, bool>) {
      if (rows) {
        std::vector<T> best(static_cast<std::size_t>(indices.numel()));
        return extreme_rows_of<kMax>(t, a, best.data(), idx);
      }
    }
    first_extreme_along<kMax>(in.template data<T>(), a, [&](T, std::int64_t at) { *idx++ = at; });
  });
  s.emplace_back(std::move(indices));
}

// max.dim / min.dim: values and int64 indices (of the first maximum or minimum; of the first
// NaN if any). Over a dimension of a contiguous tensor that is not its last (the channels of
// NCHW), blocks of positions take the rows in turn (extreme_rows), blocks across threads.
template <bool kMax>
void extreme_dim(Stack& s) {
  IValue keepdim_v = pop(s), dim_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  AlongDim a =
      along_dim(t, wrap_dim(dim_v.to_int(), t.dim()), keepdim_v.to_bool(), kMax ? "max" : "min");
  Tensor values = Tensor::uninitialized(a.out_sizes, t.dtype());
  Tensor indices = Tensor::uninitialized(a.out_sizes, DType::kInt64);
  const bool rows = along_rows(t, a);
  dispatch_all(t.dtype(), kMax ? "max_cpu" : "min_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* vals = values.template mutable_data<T>();
    std::int64_t* idx = indices.mutable_data<std::int64_t>();
    if (rows && !std::is_same_v<T, bool>) return extreme_rows_of<kMax>(t, a, vals, idx);
    first_extreme_along<kMax>(t.template data<T>(), a, [&](T best, std::int64_t at) {
      *vals++ = best;
      *idx++ = at;
    });
  });
  s.emplace_back(std::move(values));
  s.emplace_back(std::move(indices));
}

}  // namespace

void register_reduction_ops(OperatorRegistry& r) {
  IValue none;
  IValue no(false);
  r.add({"aten::sum", 2, {none}, sum});
  r.add({"aten::sum.dim_IntList", 4, {no, none}, sum_dim});
  r.add({"aten::mean", 2, {none}, mean});
  r.add({"aten::mean.dim", 4, {no, none}, mean_dim});
  r.add({"aten::amax", 3, {IValue::list({}), no}, amax});
  r.add({"aten::max", 1, {}, max_all});
  r.add({"aten::max.dim", 3, {no}, extreme_dim<true>});
  r.add({"aten::min.dim", 3, {no}, extreme_dim<false>});
  r.add({"aten::amin", 3, {IValue::list({}), no}, amin});
  r.add({"aten::min", 1, {}, min_all});
  r.add({"aten::argmax", 3, {none, no}, arg_extreme<true>});
  r.add({"aten::argmin", 3, {none, no}, arg_extreme<false>});
}

}  // namespace symbolite::ops
