// Integrals and distances along a dimension: the trapezoidal rule (trapz, trapezoid,
// cumulative_trapezoid, with sample points or a spacing), dist, pdist (pairwise distances of
// rows) and renorm (slices rescaled to a maximum norm). Composed as PyTorch 1.13's
// Integration.cpp, Distance.cpp and Normalization do, with their checks and messages.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

IValue one() { return IValue(std::int64_t{1}); }

IValue slice(const IValue& t, std::int64_t dim, std::int64_t start, std::int64_t end) {
  return run_op("aten::slice.Tensor", {t, IValue(dim), IValue(start), IValue(end), one()});
}

IValue add(const IValue& a, const IValue& b) { return run_op("aten::add.Tensor", {a, b, one()}); }

// y's shape without dimension dim, zeros: the integral over no samples.
IValue zeros_except(const Tensor& y, std::int64_t dim) {
  Ints sizes = y.sizes();
  sizes.erase(sizes.begin() + dim);
  return run_op("aten::zeros", {int_list_value(sizes), dtype_value(y.dtype()), {}, {}, {}});
}

// The spacing x[1:] - x[:-1] along dim, x viewed against y as PyTorch does (a vector along
// dim, a shorter tensor padded with leading ones).
IValue spacing(const char* name, const Tensor& y, const IValue& x_v, std::int64_t dim) {
  const Tensor& x = x_v.to_tensor();
  IValue viewed = x_v;
  if (x.dim() == 1) {
    if (x.sizes()[0] != y.sizes()[static_cast<std::size_t>(dim)]) {
      fail(fmt::format("{}: There must be one `x` value for each sample point", name));
    }
    Ints sizes(static_cast<std::size_t>(y.dim()), 1);
    sizes[static_cast<std::size_t>(dim)] = x.sizes()[0];
    viewed = run_op("aten::view", {x_v, int_list_value(sizes)});
  } else if (x.dim() < y.dim()) {
    Ints sizes(static_cast<std::size_t>(y.dim() - x.dim()), 1);
    sizes.insert(sizes.end(), x.sizes().begin(), x.sizes().end());
    viewed = run_op("aten::view", {x_v, int_list_value(sizes)});
  }
  const std::int64_t n = std::numeric_limits<std::int64_t>::max();
  return run_op("aten::sub.Tensor", {slice(viewed, dim, 1, n), slice(viewed, dim, 0, -1), one()});
}

void check_dx(const char* name, const IValue& dx) {
  if ((dx.kind() == IValue::Kind::kBool))
    fail(fmt::format("{}: Currently, we only support dx as a real number.", name));
}

// trapezoid(y, x, dim): sum((y[1:] + y[:-1]) * dx) / 2.
void trapezoid_x(Stack& s) {
  IValue dim_v = pop(s), x = pop(s), y_v = pop(s);
  const Tensor& y = y_v.to_tensor();
  const std::int64_t dim = wrap_dim(dim_v.to_int(), y.dim());
  if (y.sizes()[static_cast<std::size_t>(dim)] == 0) {
    s.push_back(zeros_except(y, dim));
    return;
  }
  if (y.dtype() == DType::kBool || x.to_tensor().dtype() == DType::kBool) {
    fail("trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  }
  const IValue dx = spacing("trapezoid", y, x, dim);
  const std::int64_t n = std::numeric_limits<std::int64_t>::max();
  IValue sum = add(slice(y_v, dim, 1, n), slice(y_v, dim, 0, -1));
  sum = run_op("aten::sum.dim_IntList", {run_op("aten::mul.Tensor", {sum, dx}),
                                         int_list_value({dim}), IValue(false), IValue()});
  s.push_back(run_op("aten::div.Scalar", {sum, IValue(2.0)}));
}

// trapezoid(y, dx, dim): (sum(y) - (y[0] + y[-1]) / 2) * dx.
void trapezoid_dx(Stack& s) {
  IValue dim_v = pop(s), dx = pop(s), y_v = pop(s);
  const Tensor& y = y_v.to_tensor();
  const std::int64_t dim = wrap_dim(dim_v.to_int(), y.dim());
  if (y.sizes()[static_cast<std::size_t>(dim)] == 0) {
    s.push_back(zeros_except(y, dim));
    return;
  }
  if (y.dtype() == DType::kBool) {
    fail("trapezoid: received a bool input for `y`, but bool is not supported");
  }
  check_dx("trapezoid", dx);
  const IValue ends = add(run_op("aten::select.int", {y_v, IValue(dim), IValue(std::int64_t{0})}),
                          run_op("aten::select.int", {y_v, IValue(dim), IValue(std::int64_t{-1})}));
  const IValue sum =
      run_op("aten::sum.dim_IntList", {y_v, int_list_value({dim}), IValue(false), IValue()});
  const IValue inner =
      run_op("aten::sub.Tensor", {sum, run_op("aten::mul.Scalar", {ends, IValue(0.5)}), one()});
  s.push_back(run_op("aten::mul.Scalar", {inner, IValue(dx.to_double())}));
}

// cumulative_trapezoid: the running sums of dx / 2 * (y[:-1] + y[1:]).
void cumulative_trapezoid_x(Stack& s) {
  IValue dim_v = pop(s), x = pop(s), y_v = pop(s);
  const Tensor& y = y_v.to_tensor();
  const std::int64_t dim = wrap_dim(dim_v.to_int(), y.dim());
  if (y.dtype() == DType::kBool || x.to_tensor().dtype() == DType::kBool) {
    fail(
        "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not "
        "supported");
  }
  const IValue dx = spacing("cumulative_trapezoid", y, x, dim);
  const std::int64_t n = std::numeric_limits<std::int64_t>::max();
  const IValue pairs = add(slice(y_v, dim, 0, -1), slice(y_v, dim, 1, n));
  const IValue half = run_op("aten::div.Scalar", {dx, IValue(2.0)});
  s.push_back(
      run_op("aten::cumsum", {run_op("aten::mul.Tensor", {half, pairs}), IValue(dim), IValue()}));
}

void cumulative_trapezoid_dx(Stack& s) {
  IValue dim_v = pop(s), dx = pop(s), y_v = pop(s);
  const Tensor& y = y_v.to_tensor();
  const std::int64_t dim = wrap_dim(dim_v.to_int(), y.dim());
  if (y.dtype() == DType::kBool) {
    fail("cumulative_trapezoid: received a bool input for `y`, but bool is not supported");
  }
  check_dx("cumulative_trapezoid", dx);
  const std::int64_t n = std::numeric_limits<std::int64_t>::max();
  const IValue pairs = add(slice(y_v, dim, 0, -1), slice(y_v, dim, 1, n));
  s.push_back(run_op(
      "aten::cumsum",
      {run_op("aten::mul.Scalar", {pairs, IValue(dx.to_double() / 2.)}), IValue(dim), IValue()}));
}

// dist(self, other, p): the p-norm of the difference.
void dist(Stack& s) {
  IValue p = pop(s), other = pop(s), self = pop(s);
  s.push_back(run_op("aten::norm.Scalar", {run_op("aten::sub.Tensor", {self, other, one()}), p}));
}

// pdist(self, p): the p-norm distances between each pair of rows i < j, in row-major pair
// order, each accumulated over the columns in order (PyTorch's _pdist_forward kernel).
void pdist(Stack& s) {
  IValue p_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const double p = p_v.to_double();
  if (t.dim() != 2) fail(fmt::format("pdist only supports 2D tensors, got: {}D", t.dim()));
  if (!is_floating(t.dtype())) fail("pdist only supports floating-point dtypes");
  if (p < 0) fail("pdist only supports non-negative p values");
  const std::int64_t rows = t.sizes()[0], cols = t.sizes()[1];
  const std::int64_t pairs = rows < 2 ? 0 : rows * (rows - 1) / 2;
  Tensor out = Tensor::empty({pairs}, t.dtype());
  if (cols == 0 || pairs == 0) {
    s.emplace_back(std::move(out));
    return;
  }
  const Tensor x = t.contiguous();
  dispatch_floating(t.dtype(), "pdist", [&](auto tag) {
    using T = decltype(tag);
    const T* a = x.template data<T>();
    T* o = out.template mutable_data<T>();
    const T pt = static_cast<T>(p);
    std::int64_t k = 0;
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = i + 1; j < rows; ++j, ++k) {
        T agg = 0;
        for (std::int64_t c = 0; c < cols; ++c) {
          const T d = std::abs(a[i * cols + c] - a[j * cols + c]);
          if (p == 0) {
            agg += d != 0 ? T{1} : T{0};
          } else if (p == 1) {
            agg += d;
          } else if (p == 2) {
            agg += d * d;
          } else if (std::isinf(p)) {
            agg = std::max(agg, d);
          } else {
            agg += std::pow(d, pt);
          }
        }
        if (p == 2) {
          agg = std::sqrt(agg);
        } else if (p != 0 && p != 1 && !std::isinf(p)) {
          agg = std::pow(agg, T{1} / pt);
        }
        o[k] = agg;
      }
    }
  });
  s.emplace_back(std::move(out));
}

// renorm(self, p, dim, maxnorm): each slice along dim whose p-norm exceeds maxnorm scaled by
// maxnorm / (norm + 1e-7).
Tensor renorm_impl(const IValue& self, const IValue& p, std::int64_t dim_in,
                   const IValue& maxnorm) {
  if (p.to_double() <= 0.0) fail("renorm: non-positive-norm not supported");
  if (maxnorm.to_double() < 0.0) {
    fail(fmt::format("renorm: expected maxnorm to be >= 0 but got {}", maxnorm.to_double()));
  }
  const Tensor& t = self.to_tensor();
  if (t.dim() <= 1) {
    fail(fmt::format("renorm: input needs at least 2 dimensions, got {} dimensions", t.dim()));
  }
  if (!is_floating(t.dtype())) {
    fail(fmt::format(
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
        tensor::scalar_type_name(t.dtype())));
  }
  const std::int64_t dim = wrap_dim(dim_in, t.dim());
  Ints reduce;
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    if (d != dim) reduce.push_back(d);
  }
  const Tensor norm =
      run_op("aten::linalg_vector_norm",
             {self, IValue(p.to_double()), int_list_value(reduce), IValue(true), IValue()})
          .to_tensor()
          .contiguous();
  Tensor factor = Tensor::uninitialized(norm.sizes(), norm.dtype());
  dispatch_floating(norm.dtype(), "renorm_scale_factor_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* n = norm.template data<T>();
    T* f = factor.template mutable_data<T>();
    const auto limit = static_cast<T>(maxnorm.to_double());
    const auto eps = static_cast<T>(1e-7);
    for (std::int64_t i = 0; i < norm.numel(); ++i) {
      f[i] = n[i] > limit ? limit / (n[i] + eps) : T{1};
    }
  });
  return run_op("aten::mul.Tensor", {self, IValue(std::move(factor))}).to_tensor();
}

template <bool kInPlace>
void renorm(Stack& s) {
  IValue maxnorm = pop(s), dim = pop(s), p = pop(s), self = pop(s);
  Tensor out = renorm_impl(self, p, dim.to_int(), maxnorm);
  if constexpr (kInPlace) {
    push_in_place(s, self, out);
  } else {
    s.emplace_back(std::move(out));
  }
}

}  // namespace

void register_integral_distance_ops(OperatorRegistry& r) {
  const IValue last(std::int64_t{-1});
  r.add({"aten::trapezoid.x", 3, {last}, trapezoid_x});
  r.add({"aten::trapezoid.dx", 3, {one(), last}, trapezoid_dx});
  r.add({"aten::trapz.x", 3, {last}, trapezoid_x});
  r.add({"aten::trapz.dx", 3, {IValue(1.0), last}, trapezoid_dx});
  r.add({"aten::cumulative_trapezoid.x", 3, {last}, cumulative_trapezoid_x});
  r.add({"aten::cumulative_trapezoid.dx", 3, {one(), last}, cumulative_trapezoid_dx});
  r.add({"aten::dist", 3, {IValue(std::int64_t{2})}, dist});
  r.add({"aten::pdist", 2, {IValue(2.0)}, pdist});
  r.add({"aten::renorm", 4, {}, renorm<false>});
  r.add({"aten::renorm_", 4, {}, renorm<true>});
}

}  // namespace symbolite::ops
