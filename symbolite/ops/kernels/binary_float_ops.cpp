// Elementwise functions of two tensors (broadcast, in PyTorch's promoted dtype): atan2, hypot,
// logaddexp and logaddexp2, xlogy, copysign, fmax and fmin, float_power, lerp, heaviside,
// nextafter and ldexp.
// Integer operands of the float functions that PyTorch promotes (atan2, xlogy, copysign) give
// float32; those it does not (hypot, logaddexp, lerp) fail as its dispatch does; float_power
// computes in float64.
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

DType common_of(const Tensor& a, const Tensor& b) {
  return ResultType().tensor(a).tensor(b).result();
}

// f(a, b) over the broadcast operands in their common floating dtype; integers (and bools)
// promote to float32 when `int_to_float`, else fail as PyTorch's `kernel` dispatch does.
template <typename F>
Tensor float_binary(const Tensor& a, const Tensor& b, const char* kernel, bool int_to_float, F f) {
  DType dtype = common_of(a, b);
  if (!is_floating(dtype) && int_to_float) dtype = DType::kFloat32;
  return dispatch_floating(dtype, kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(a, b, [&f](T x, T y) { return static_cast<T>(f(x, y)); });
  });
}

#define SYMBOLITE_FLOAT_BINARY(name, kernel, int_to_float, expr)                           \
  void name(Stack& s) {                                                                    \
    IValue other = pop(s), self = pop(s);                                                  \
    s.emplace_back(float_binary(self.to_tensor(), other.to_tensor(), kernel, int_to_float, \
                                [](auto x, auto y) { return expr; }));                     \
  }

SYMBOLITE_FLOAT_BINARY(atan2_op, "atan2_cpu", true, std::atan2(x, y))
SYMBOLITE_FLOAT_BINARY(hypot_op, "hypot_cpu", false, std::hypot(x, y))
SYMBOLITE_FLOAT_BINARY(copysign_op, "copysign_cpu", true, std::copysign(x, y))
// log(e^x + e^y) without overflow: the larger plus log1p(e^-|x - y|); equal infinities give
// themselves.
SYMBOLITE_FLOAT_BINARY(logaddexp_op, "logaddexp_cpu", false,
                       (std::isinf(x) && x == y)
                           ? x
                           : std::max(x, y) + std::log1p(std::exp(-std::abs(x - y))))
SYMBOLITE_FLOAT_BINARY(logaddexp2_op, "logaddexp2_cpu", false,
                       (std::isinf(x) && x == y)
                           ? x
                           : std::max(x, y) +
                                 std::log1p(std::exp2(-std::abs(x - y))) / std::log(decltype(x)(2)))
// x * log(y), 0 where x is 0 (and y is not NaN).
SYMBOLITE_FLOAT_BINARY(xlogy_op, "xlogy_cpu", true,
                       std::isnan(y) ? y
                       : x == 0      ? decltype(x)(0)
                                     : x * std::log(y))

// The next representable value after x towards y.
SYMBOLITE_FLOAT_BINARY(nextafter_op, "nextafter_cpu", false, std::nextafter(x, y))

#undef SYMBOLITE_FLOAT_BINARY

// ldexp(self, other): self * 2**other, composed as PyTorch does (mul(self, pow(2., other)),
// with exp2 for the power: float32 for integer exponents), so its dtypes are mul's.
void ldexp_op(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.push_back(run_op("aten::mul.Tensor", {self, run_op("aten::exp2", {other})}));
}

void xlogy_scalar_other(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  s.emplace_back(float_binary(a, wrapped_scalar(other, a), "xlogy_cpu", true, [](auto x, auto y) {
    return std::isnan(y) ? y : x == 0 ? decltype(x)(0) : x * std::log(y);
  }));
}
void xlogy_scalar_self(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& b = other.to_tensor();
  s.emplace_back(float_binary(wrapped_scalar(self, b), b, "xlogy_cpu", true, [](auto x, auto y) {
    return std::isnan(y) ? y : x == 0 ? decltype(x)(0) : x * std::log(y);
  }));
}
void copysign_scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  s.emplace_back(float_binary(a, wrapped_scalar(other, a), "copysign_cpu", true,
                              [](auto x, auto y) { return std::copysign(x, y); }));
}

// fmax / fmin: the larger (smaller) of the two, NaN only where both are; any numeric dtype.
template <bool kMax>
void fmax_fmin(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  const DType dtype = common_of(a, b);
  s.emplace_back(dispatch_numeric(dtype, kMax ? "fmax_cpu" : "fmin_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(a, b, [](T x, T y) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        return kMax ? std::fmax(x, y) : std::fmin(x, y);
      } else {
        return kMax ? std::max(x, y) : std::min(x, y);
      }
    });
  }));
}

// float_power: pow in float64.
Tensor float_power(const Tensor& a, const Tensor& b) {
  return binary_kernel<double>(to_dtype(a, DType::kFloat64), to_dtype(b, DType::kFloat64),
                               [](double x, double y) { return std::pow(x, y); });
}
void float_power_tensor_tensor(Stack& s) {
  IValue exponent = pop(s), self = pop(s);
  s.emplace_back(float_power(self.to_tensor(), exponent.to_tensor()));
}
void float_power_tensor_scalar(Stack& s) {
  IValue exponent = pop(s), self = pop(s);
  s.emplace_back(float_power(self.to_tensor(), scalar_tensor(exponent, DType::kFloat64)));
}
void float_power_scalar(Stack& s) {
  IValue exponent = pop(s), self = pop(s);
  s.emplace_back(float_power(scalar_tensor(self, DType::kFloat64), exponent.to_tensor()));
}

// lerp: self + weight * (end - self), from self for weights below 0.5 and from end above, in
// one fused multiply-add: PyTorch 1.13's vectorized kernel's bits (vec::fmadd, and its test is
// weight < 0.5, not |weight| < 0.5: a weight of -0.7 goes from self).
template <typename T>
T lerp_value(T self, T end, T weight) {
  const T diff = end - self;
  return weight < T(0.5) ? std::fma(weight, diff, self) : std::fma(weight - T(1), diff, end);
}

void check_same_dtype(const Tensor& self, const Tensor& other, const char* what) {
  if (self.dtype() != other.dtype()) {
    fail(fmt::format("expected dtype {} for `{}` but got dtype {}",
                     tensor::type_meta_name(self.dtype()), what,
                     tensor::type_meta_name(other.dtype())));
  }
}

void lerp_scalar(Stack& s) {
  IValue weight = pop(s), end_v = pop(s), self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  const Tensor& end = end_v.to_tensor();
  check_same_dtype(self, end, "end");
  s.emplace_back(dispatch_floating(self.dtype(), "lerp_kernel_scalar", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    const T w = checked_value<T>(weight);
    return binary_kernel<T>(self, end, [w](T a, T b) { return lerp_value(a, b, w); });
  }));
}

void lerp_tensor(Stack& s) {
  IValue weight_v = pop(s), end_v = pop(s), self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  const Tensor& end = end_v.to_tensor();
  const Tensor& weight = weight_v.to_tensor();
  check_same_dtype(self, end, "end");
  check_same_dtype(self, weight, "weight");
  const std::vector<std::int64_t> shape =
      tensor::broadcast_shapes(tensor::broadcast_shapes(self.sizes(), end.sizes()), weight.sizes());
  Tensor out = Tensor::uninitialized(shape, self.dtype());
  dispatch_floating(self.dtype(), "lerp_kernel_tensor", [&](auto tag) {
    using T = decltype(tag);
    const std::vector<std::int64_t> so = tensor::contiguous_strides(shape);
    const std::vector<std::int64_t> sa = broadcast_strides(self, shape);
    const std::vector<std::int64_t> sb = broadcast_strides(end, shape);
    const std::vector<std::int64_t> sw = broadcast_strides(weight, shape);
    const T* a = self.template data<T>();
    const T* b = end.template data<T>();
    const T* w = weight.template data<T>();
    T* o = out.template mutable_data<T>();
    std::array<const std::int64_t*, 4> strides{so.data(), sa.data(), sb.data(), sw.data()};
    for_each_offset<4>(shape, strides, [&](const std::array<std::int64_t, 4>& k) {
      o[k[0]] = lerp_value(a[k[1]], b[k[2]], w[k[3]]);
    });
  });
  s.emplace_back(std::move(out));
}

// heaviside(self, values): values where self is 0, else whether self is positive (NaN: 0).
// Any dtype, but one for both, as PyTorch 1.13 requires.
Tensor heaviside(const Tensor& self, const Tensor& values) {
  if (self.dtype() != values.dtype()) {
    fail("heaviside is not yet implemented for tensors with different dtypes.");
  }
  return dispatch_all(self.dtype(), "heaviside_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(self, values,
                            [](T x, T v) { return x == T(0) ? v : static_cast<T>(x > T(0)); });
  });
}
void heaviside_op(Stack& s) {
  IValue values = pop(s), self = pop(s);
  s.emplace_back(heaviside(self.to_tensor(), values.to_tensor()));
}

}  // namespace

void register_binary_float_ops(OperatorRegistry& r) {
  r.add({"aten::atan2", 2, {}, atan2_op});
  r.add({"aten::arctan2", 2, {}, atan2_op});
  r.add({"aten::hypot", 2, {}, hypot_op});
  r.add({"aten::copysign.Tensor", 2, {}, copysign_op});
  r.add({"aten::copysign.Scalar", 2, {}, copysign_scalar});
  r.add({"aten::logaddexp", 2, {}, logaddexp_op});
  r.add({"aten::logaddexp2", 2, {}, logaddexp2_op});
  r.add({"aten::xlogy.Tensor", 2, {}, xlogy_op});
  r.add({"aten::xlogy.Scalar_Other", 2, {}, xlogy_scalar_other});
  r.add({"aten::xlogy.Scalar_Self", 2, {}, xlogy_scalar_self});
  r.add({"aten::fmax", 2, {}, fmax_fmin<true>});
  r.add({"aten::fmin", 2, {}, fmax_fmin<false>});
  r.add({"aten::float_power.Tensor_Tensor", 2, {}, float_power_tensor_tensor});
  r.add({"aten::float_power.Tensor_Scalar", 2, {}, float_power_tensor_scalar});
  r.add({"aten::float_power.Scalar", 2, {}, float_power_scalar});
  r.add({"aten::lerp.Scalar", 3, {}, lerp_scalar});
  r.add({"aten::lerp.Tensor", 3, {}, lerp_tensor});
  r.add({"aten::heaviside", 2, {}, heaviside_op});
  r.add({"aten::nextafter", 2, {}, nextafter_op});
  r.add({"aten::ldexp.Tensor", 2, {}, ldexp_op});
}

}  // namespace symbolite::ops
