// Order statistics that sort first: quantile and nanquantile (q a number or a 1-D tensor, every
// interpolation), and mode. quantile is PyTorch 1.13's own composition (sort, ranks,
// gather, lerp) run operator by operator, so the results are its bits; mode sorts each line's
// (value, index) pairs with std::sort and PyTorch's comparator, so of equally frequent values
// the same one, and of its positions the same one, is reported.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

enum class Interpolation { kLinear, kLower, kHigher, kMidpoint, kNearest };

Interpolation interpolation_arg(const std::string& name) {
  static const std::array<std::pair<const char*, Interpolation>, 5> modes{{
      {"linear", Interpolation::kLinear},
      {"lower", Interpolation::kLower},
      {"higher", Interpolation::kHigher},
      {"midpoint", Interpolation::kMidpoint},
      {"nearest", Interpolation::kNearest},
  }};
  for (const auto& [text, mode] : modes) {
    if (name == text) return mode;
  }
  fail(
      fmt::format("quantile() interpolation must be one of linear, lower, higher, midpoint or "
                  "nearest, but got {}",
                  name));
}

// quantile(self, q, dim, keepdim, interpolation) with q a tensor; `ignore_nan` for
// nanquantile.
IValue quantile_impl(const IValue& self_v, const IValue& q_v, const IValue& dim_v, bool keepdim,
                     Interpolation mode, bool ignore_nan) {
  const Tensor& self = self_v.to_tensor();
  const Tensor& q = q_v.to_tensor();
  if (self.numel() == 0) fail("quantile() input tensor must be non-empty");
  if (q.dim() > 1) fail("quantile() q must be a scalar or 1D tensor");
  if (self.dtype() != DType::kFloat32 && self.dtype() != DType::kFloat64) {
    fail("quantile() input tensor must be either float or double dtype");
  }
  if (self.dtype() != q.dtype()) fail("quantile() q tensor must be same dtype as the input tensor");
  const IValue in_range = run_op(
      "aten::logical_and",
      {run_op("aten::ge.Scalar", {q_v, IValue(0)}), run_op("aten::le.Scalar", {q_v, IValue(1)})});
  if (!run_op("aten::all", {in_range}).to_tensor().data<bool>()[0]) {
    fail("quantile() q values must be in the range [0, 1]");
  }
  const bool has_dim = !dim_v.is_none();
  const std::int64_t dim = wrap_dim(has_dim ? dim_v.to_int() : 0, self.dim());

  // The output's shape with q's dimension first, as if q were 1-D.
  Ints out_shape;
  if (has_dim && self.dim() > 0) {
    out_shape = self.sizes();
    if (keepdim) {
      out_shape[static_cast<std::size_t>(dim)] = 1;
    } else {
      out_shape.erase(out_shape.begin() + dim);
    }
  } else if (keepdim) {
    out_shape.assign(static_cast<std::size_t>(self.dim()), 1);
  }
  out_shape.insert(out_shape.begin(), q.numel());

  IValue lines;
  if (!has_dim) {
    lines = run_op("aten::flatten.using_ints", {self_v, IValue(0), IValue(-1)});
  } else if (dim == self.dim() - 1) {
    lines = self_v;
  } else {
    lines = run_op("aten::transpose.int",
                   {run_op("aten::unsqueeze", {self_v, IValue(-1)}), IValue(dim), IValue(-1)});
  }
  IValue sorted = run_op_multi("aten::sort", {lines, IValue(-1), IValue(false)})[0];
  // One line per output place, q's dimension left out.
  Ints line_shape(out_shape.begin() + 1, out_shape.end());
  line_shape.push_back(sorted.to_tensor().sizes().back());
  sorted = run_op("aten::reshape", {sorted, int_list_value(line_shape)});
  const std::int64_t last_index = line_shape.back() - 1;

  // Ranks in [0, n): a line with NaN reads its last place (NaN) for quantile; nanquantile
  // ranks among the line's numbers.
  IValue nan = run_op("aten::isnan", {sorted});
  IValue ranks;
  if (ignore_nan) {
    IValue count =
        run_op("aten::sum.dim_IntList",
               {run_op("aten::logical_not", {nan}), int_list_value({-1}), IValue(true), {}});
    ranks = run_op("aten::mul.Tensor",
                   {q_v, run_op("aten::sub.Scalar", {count, IValue(1), IValue(1)})});
    ranks = run_op("aten::masked_fill.Scalar",
                   {ranks, run_op("aten::lt.Scalar", {ranks, IValue(0)}), IValue(0)});
  } else {
    IValue scaled = run_op("aten::mul.Scalar", {q_v, IValue(last_index)});
    IValue any_nan = run_op("aten::any.dim", {nan, IValue(-1), IValue(true)});
    IValue both = run_op("aten::broadcast_tensors", {IValue::list({scaled, any_nan})});
    ranks = run_op("aten::masked_fill.Scalar",
                   {both.to_list()[0], both.to_list()[1], IValue(last_index)});
  }
  if (mode == Interpolation::kLower) ranks = run_op("aten::floor", {ranks});
  if (mode == Interpolation::kHigher) ranks = run_op("aten::ceil", {ranks});
  if (mode == Interpolation::kNearest) ranks = run_op("aten::round", {ranks});
  const IValue long_code = dtype_value(DType::kInt64);
  IValue below = run_op("aten::to.dtype", {ranks, long_code, IValue(false), IValue(false), {}});
  IValue values = run_op("aten::gather", {sorted, IValue(-1), below, IValue(false)});
  if (mode == Interpolation::kLinear || mode == Interpolation::kMidpoint) {
    IValue weights = mode == Interpolation::kMidpoint
                         ? run_op("aten::full_like", {ranks, IValue(0.5), {}, {}, {}, {}, {}})
                         : run_op("aten::sub.Tensor", {ranks, below, IValue(1)});
    IValue above =
        run_op("aten::to.dtype",
               {run_op("aten::ceil", {ranks}), long_code, IValue(false), IValue(false), {}});
    values = run_op(
        "aten::lerp.Tensor",
        {values, run_op("aten::gather", {sorted, IValue(-1), above, IValue(false)}), weights});
  }
  if (q.dim() == 0) return run_op("aten::squeeze.dim", {values, IValue(-1)});
  // The quantiles' dimension moves first.
  IValue moved = run_op("aten::transpose.int",
                        {run_op("aten::unsqueeze", {values, IValue(0)}), IValue(0), IValue(-1)});
  return run_op("aten::squeeze.dim", {moved, IValue(-1)});
}

// quantile / nanquantile (Tensor q) and their .scalar forms (float q).
template <bool kIgnoreNan, bool kScalarQ>
void quantile(Stack& s) {
  IValue interpolation = pop(s), keepdim = pop(s), dim = pop(s), q = pop(s), self = pop(s);
  if constexpr (kScalarQ) {
    const double p = q.to_double();
    if (!(p >= 0 && p <= 1)) {
      fail(fmt::format("quantile() q must be in the range [0, 1] but got {}", p));
    }
    q = IValue(scalar_tensor(q, self.to_tensor().dtype()));
  }
  const Interpolation mode = interpolation_arg(interpolation.to_string());
  s.push_back(quantile_impl(self, q, dim, keepdim.to_bool(), mode, kIgnoreNan));
}

// mode(self, dim=-1, keepdim=False) -> (values, indices): the most frequent value of each
// line (of equally frequent ones the first in sorted order) and the position of its last
// occurrence in the sorted line.
void mode(Stack& s) {
  const bool keepdim = pop(s).to_bool();
  const std::int64_t dim_arg = pop(s).to_int();
  const Tensor self = pop(s).to_tensor();
  const std::int64_t dim = wrap_dim(dim_arg, self.dim());
  const std::int64_t size = self.dim() == 0 ? 1 : self.sizes()[static_cast<std::size_t>(dim)];
  if (self.numel() == 0 && self.dim() > 0 && size == 0) {
    throw OpError("IndexError",
                  fmt::format("mode(): Expected reduction dim {} to have non-zero size.", dim));
  }
  Ints out_shape = self.sizes();
  if (self.dim() > 0) out_shape[static_cast<std::size_t>(dim)] = 1;
  Tensor values = Tensor::uninitialized(out_shape, self.dtype());
  Tensor indices = Tensor::uninitialized(out_shape, DType::kInt64);
  const Tensor x = self.contiguous();
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < x.dim(); ++d) {
    if (d < dim) outer *= x.sizes()[static_cast<std::size_t>(d)];
    if (d > dim) inner *= x.sizes()[static_cast<std::size_t>(d)];
  }
  if (size > 0) {
    dispatch_all(x.dtype(), "mode", [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.template data<T>();
      T* val = values.template mutable_data<T>();
      std::int64_t* idx = indices.mutable_data<std::int64_t>();
      std::vector<std::pair<T, std::int64_t>> line(static_cast<std::size_t>(size));
      for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t i = 0; i < inner; ++i) {
          for (std::int64_t k = 0; k < size; ++k) {
            line[static_cast<std::size_t>(k)] = {in[(o * size + k) * inner + i], k};
          }
          std::sort(line.begin(), line.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
          T best{};
          std::int64_t best_at = 0, best_count = 0, run = 0;
          for (std::size_t k = 0; k < line.size(); ++k) {
            ++run;
            if (k + 1 == line.size() || line[k].first != line[k + 1].first) {
              if (run > best_count) {
                best = line[k].first;
                best_at = line[k].second;
                best_count = run;
              }
              run = 0;
            }
          }
          val[o * inner + i] = best;
          idx[o * inner + i] = best_at;
        }
      }
    });
  }
  IValue v(values), i(indices);
  if (!keepdim && self.dim() > 0) {
    v = run_op("aten::squeeze.dim", {v, IValue(dim)});
    i = run_op("aten::squeeze.dim", {i, IValue(dim)});
  }
  s.push_back(std::move(v));
  s.push_back(std::move(i));
}

}  // namespace

void register_quantile_ops(OperatorRegistry& r) {
  const IValue none, no(false), linear = IValue::string("linear");
  r.add({"aten::quantile", 5, {none, no, linear}, quantile<false, false>});
  r.add({"aten::quantile.scalar", 5, {none, no, linear}, quantile<false, true>});
  r.add({"aten::nanquantile", 5, {none, no, linear}, quantile<true, false>});
  r.add({"aten::nanquantile.scalar", 5, {none, no, linear}, quantile<true, true>});
  r.add({"aten::mode", 3, {IValue(std::int64_t{-1}), no}, mode});
}

}  // namespace symbolite::ops
