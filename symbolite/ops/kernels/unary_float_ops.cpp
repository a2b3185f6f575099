// The unary floating-point functions (aten::sqrt, log, sin, erf, ...), clamp with its
// one-sided forms, and nan_to_num. Integer and bool tensors compute in the default float32, floating ones in
// their own dtype, as PyTorch's unary float kernels do; std:: functions give the same
// results as PyTorch's scalar paths to rounding (the reference cases allow rtol 1e-4).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// out = f(x) in x's floating dtype, or float32 for integers and bools.
template <typename F>
Tensor float_unary(const Tensor& x, const char* kernel, F f) {
  const DType compute = is_floating(x.dtype()) ? x.dtype() : DType::kFloat32;
  const Tensor in = x.dtype() == compute ? x : to_dtype(x, compute);
  return dispatch_floating(compute, kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(in, [&](T v) { return static_cast<T>(f(v)); });
  });
}

#define SYMBOLITE_FLOAT_UNARY(name, kernel, expr)                                       \
  void name(Stack& s) {                                                                 \
    const Tensor x = pop(s).to_tensor();                                                \
    s.emplace_back(float_unary(x, kernel, [](auto v) { return expr; }));                \
  }                                                                                     \
  void name##_(Stack& s) {                                                              \
    IValue self = pop(s);                                                               \
    const Tensor& x = self.to_tensor();                                                 \
    if (!is_floating(x.dtype())) {                                                      \
      fail(fmt::format("result type Float can't be cast to the desired output type {}", \
                       tensor::scalar_type_name(x.dtype())));                           \
    }                                                                                   \
    push_in_place(s, self, float_unary(x, kernel, [](auto v) { return expr; }));        \
  }

SYMBOLITE_FLOAT_UNARY(sqrt_op, "sqrt_vml_cpu", std::sqrt(v))
SYMBOLITE_FLOAT_UNARY(rsqrt_op, "rsqrt_cpu", 1 / std::sqrt(v))
SYMBOLITE_FLOAT_UNARY(log_op, "log_vml_cpu", std::log(v))
SYMBOLITE_FLOAT_UNARY(log2_op, "log2_cpu", std::log2(v))
SYMBOLITE_FLOAT_UNARY(log10_op, "log10_vml_cpu", std::log10(v))
SYMBOLITE_FLOAT_UNARY(log1p_op, "log1p_vml_cpu", std::log1p(v))
SYMBOLITE_FLOAT_UNARY(expm1_op, "expm1_vml_cpu", std::expm1(v))
SYMBOLITE_FLOAT_UNARY(sin_op, "sin_vml_cpu", std::sin(v))
SYMBOLITE_FLOAT_UNARY(cos_op, "cos_vml_cpu", std::cos(v))
SYMBOLITE_FLOAT_UNARY(tan_op, "tan_vml_cpu", std::tan(v))
SYMBOLITE_FLOAT_UNARY(asin_op, "asin_vml_cpu", std::asin(v))
SYMBOLITE_FLOAT_UNARY(acos_op, "acos_vml_cpu", std::acos(v))
SYMBOLITE_FLOAT_UNARY(atan_op, "atan_vml_cpu", std::atan(v))
SYMBOLITE_FLOAT_UNARY(sinh_op, "sinh_vml_cpu", std::sinh(v))
SYMBOLITE_FLOAT_UNARY(cosh_op, "cosh_vml_cpu", std::cosh(v))
SYMBOLITE_FLOAT_UNARY(asinh_op, "asinh_cpu", std::asinh(v))
SYMBOLITE_FLOAT_UNARY(acosh_op, "acosh_cpu", std::acosh(v))
SYMBOLITE_FLOAT_UNARY(atanh_op, "atanh_cpu", std::atanh(v))
SYMBOLITE_FLOAT_UNARY(erf_op, "erf_vml_cpu", std::erf(v))
SYMBOLITE_FLOAT_UNARY(erfc_op, "erfc_vml_cpu", std::erfc(v))
SYMBOLITE_FLOAT_UNARY(reciprocal_op, "reciprocal_cpu", 1 / v)

#undef SYMBOLITE_FLOAT_UNARY

// clamp(self, Scalar? min, Scalar? max): a float bound on an integer tensor gives float32
// (type promotion with the scalars); NaN in self stays NaN; with min > max every element is
// max (min is applied first).
Tensor clamp_impl(const Tensor& x, const IValue& lo, const IValue& hi) {
  if (lo.is_none() && hi.is_none())
    fail("torch.clamp: At least one of 'min' or 'max' must not be None");
  if (x.dtype() == DType::kBool) not_implemented("clamp_scalar_cpu", x.dtype());
  const bool float_bound = (!lo.is_none() && lo.is(IValue::Kind::kDouble)) ||
                           (!hi.is_none() && hi.is(IValue::Kind::kDouble));
  const DType compute = !is_floating(x.dtype()) && float_bound ? DType::kFloat32 : x.dtype();
  const Tensor in = x.dtype() == compute ? x : to_dtype(x, compute);
  return dispatch_numeric(compute, "clamp_scalar_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    const bool has_lo = !lo.is_none(), has_hi = !hi.is_none();
    const T l = has_lo ? static_cast<T>(lo.to_double()) : T{};
    const T h = has_hi ? static_cast<T>(hi.to_double()) : T{};
    const T li = has_lo && lo.is(IValue::Kind::kInt) ? static_cast<T>(lo.to_int()) : l;
    const T hi_v = has_hi && hi.is(IValue::Kind::kInt) ? static_cast<T>(hi.to_int()) : h;
    return unary_same<T>(in, [=](T v) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(v)) return v;
      }
      if (has_lo) v = std::max(v, li);
      if (has_hi) v = std::min(v, hi_v);
      return v;
    });
  });
}

void clamp(Stack& s) {
  IValue hi = pop(s), lo = pop(s);
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(clamp_impl(x, lo, hi));
}
void clamp_min(Stack& s) {
  IValue lo = pop(s);
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(clamp_impl(x, lo, IValue()));
}
void clamp_max(Stack& s) {
  IValue hi = pop(s);
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(clamp_impl(x, IValue(), hi));
}

// nan_to_num(self, nan=None, posinf=None, neginf=None): NaN, +inf and -inf replaced (by 0 and
// the dtype's largest and lowest finite values unless given); integers and bools copied.
void nan_to_num(Stack& s) {
  IValue neginf = pop(s), posinf = pop(s), nan = pop(s);
  const Tensor x = pop(s).to_tensor();
  if (!is_floating(x.dtype())) {
    s.emplace_back(x.copy());
    return;
  }
  s.emplace_back(dispatch_floating(x.dtype(), "nan_to_num", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    const T for_nan = nan.is_none() ? T(0) : static_cast<T>(nan.to_double());
    const T for_pos =
        posinf.is_none() ? std::numeric_limits<T>::max() : static_cast<T>(posinf.to_double());
    const T for_neg =
        neginf.is_none() ? std::numeric_limits<T>::lowest() : static_cast<T>(neginf.to_double());
    return unary_same<T>(x, [=](T v) {
      return std::isnan(v)                              ? for_nan
             : v == std::numeric_limits<T>::infinity()  ? for_pos
             : v == -std::numeric_limits<T>::infinity() ? for_neg
                                                        : v;
    });
  }));
}

}  // namespace

void register_unary_float_ops(OperatorRegistry& r) {
  const std::pair<const char*, Kernel> functions[] = {
      {"sqrt", sqrt_op},   {"rsqrt", rsqrt_op}, {"log", log_op},
      {"log2", log2_op},   {"log10", log10_op}, {"log1p", log1p_op},
      {"expm1", expm1_op}, {"sin", sin_op},     {"cos", cos_op},
      {"tan", tan_op},     {"asin", asin_op},   {"acos", acos_op},
      {"atan", atan_op},   {"sinh", sinh_op},   {"cosh", cosh_op},
      {"asinh", asinh_op}, {"acosh", acosh_op}, {"atanh", atanh_op},
      {"erf", erf_op},     {"erfc", erfc_op},   {"reciprocal", reciprocal_op}};
  const std::pair<const char*, Kernel> in_place[] = {
      {"sqrt_", sqrt_op_},   {"rsqrt_", rsqrt_op_}, {"log_", log_op_},
      {"log2_", log2_op_},   {"log10_", log10_op_}, {"log1p_", log1p_op_},
      {"expm1_", expm1_op_}, {"sin_", sin_op_},     {"cos_", cos_op_},
      {"tan_", tan_op_},     {"asin_", asin_op_},   {"acos_", acos_op_},
      {"atan_", atan_op_},   {"sinh_", sinh_op_},   {"cosh_", cosh_op_},
      {"asinh_", asinh_op_}, {"acosh_", acosh_op_}, {"atanh_", atanh_op_},
      {"erf_", erf_op_},     {"erfc_", erfc_op_},   {"reciprocal_", reciprocal_op_}};
  for (const auto& [name, kernel] : functions) r.add({std::string("aten::") + name, 1, {}, kernel});
  for (const auto& [name, kernel] : in_place) r.add({std::string("aten::") + name, 1, {}, kernel});
  IValue none;
  r.add({"aten::clamp", 3, {none, none}, clamp});
  r.add({"aten::clamp_min", 2, {}, clamp_min});
  r.add({"aten::clamp_max", 2, {}, clamp_max});
  r.add({"aten::nan_to_num", 4, {none, none, none}, nan_to_num});
}

}  // namespace symbolite::ops
