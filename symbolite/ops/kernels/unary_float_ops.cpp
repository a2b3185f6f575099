// The unary floating-point functions (aten::sqrt, log, sin, erf, exp2, sinc, logit, ...), clamp
// with its one-sided forms, nan_to_num, frac, and the per-element tests (isnan, isinf, isfinite,
// isposinf, isneginf, signbit). Integer and bool tensors compute in the default float32, floating
// ones in their own dtype, as PyTorch's unary float kernels do; std:: functions give the same
// results as PyTorch's scalar paths to rounding (the reference cases allow rtol 1e-4).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/clamp_scalars.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// A contiguous float32 x through SLEEF's vector function (as PyTorch's Vectorized<float>);
// anything else element by element with `f`.
template <typename F>
Tensor float_unary_or_sleef(const Tensor& x, const char* kernel, F f,
                            std::optional<vec::FloatFunction> sleef) {
  if (sleef) {
    auto fast = map_contiguous_f32(x, [&](const float* in, float* out, std::int64_t n) {
      vec::float_function_f32(*sleef, in, out, n);
    });
    if (fast) return std::move(*fast);
  }
  return float_unary(x, kernel, f);
}

#define SYMBOLITE_FLOAT_UNARY_SLEEF(name, kernel, expr, sleef)                          \
  void name(Stack& s) {                                                                 \
    const Tensor x = pop(s).to_tensor();                                                \
    s.emplace_back(float_unary_or_sleef(                                                \
        x, kernel, [](auto v) { return expr; }, sleef));                                \
  }                                                                                     \
  void name##_(Stack& s) {                                                              \
    IValue self = pop(s);                                                               \
    const Tensor& x = self.to_tensor();                                                 \
    if (!is_floating(x.dtype())) {                                                      \
      fail(fmt::format("result type Float can't be cast to the desired output type {}", \
                       tensor::scalar_type_name(x.dtype())));                           \
    }                                                                                   \
    push_in_place(s, self,                                                              \
                  float_unary_or_sleef(                                                 \
                      x, kernel, [](auto v) { return expr; }, sleef));                  \
  }
#define SYMBOLITE_FLOAT_UNARY(name, kernel, expr) \
  SYMBOLITE_FLOAT_UNARY_SLEEF(name, kernel, expr, std::nullopt)

SYMBOLITE_FLOAT_UNARY_SLEEF(sqrt_op, "sqrt_vml_cpu", std::sqrt(v), vec::FloatFunction::kSqrt)
SYMBOLITE_FLOAT_UNARY_SLEEF(rsqrt_op, "rsqrt_cpu", 1 / std::sqrt(v), vec::FloatFunction::kRsqrt)
SYMBOLITE_FLOAT_UNARY_SLEEF(log_op, "log_vml_cpu", std::log(v), vec::FloatFunction::kLog)
SYMBOLITE_FLOAT_UNARY_SLEEF(log2_op, "log2_cpu", std::log2(v), vec::FloatFunction::kLog2)
SYMBOLITE_FLOAT_UNARY_SLEEF(log10_op, "log10_vml_cpu", std::log10(v), vec::FloatFunction::kLog10)
SYMBOLITE_FLOAT_UNARY_SLEEF(log1p_op, "log1p_vml_cpu", std::log1p(v), vec::FloatFunction::kLog1p)
SYMBOLITE_FLOAT_UNARY_SLEEF(expm1_op, "expm1_vml_cpu", std::expm1(v), vec::FloatFunction::kExpm1)
SYMBOLITE_FLOAT_UNARY_SLEEF(sin_op, "sin_vml_cpu", std::sin(v), vec::FloatFunction::kSin)
SYMBOLITE_FLOAT_UNARY_SLEEF(cos_op, "cos_vml_cpu", std::cos(v), vec::FloatFunction::kCos)
SYMBOLITE_FLOAT_UNARY_SLEEF(tan_op, "tan_vml_cpu", std::tan(v), vec::FloatFunction::kTan)
SYMBOLITE_FLOAT_UNARY_SLEEF(asin_op, "asin_vml_cpu", std::asin(v), vec::FloatFunction::kAsin)
SYMBOLITE_FLOAT_UNARY_SLEEF(acos_op, "acos_vml_cpu", std::acos(v), vec::FloatFunction::kAcos)
SYMBOLITE_FLOAT_UNARY_SLEEF(atan_op, "atan_vml_cpu", std::atan(v), vec::FloatFunction::kAtan)
SYMBOLITE_FLOAT_UNARY_SLEEF(sinh_op, "sinh_vml_cpu", std::sinh(v), vec::FloatFunction::kSinh)
SYMBOLITE_FLOAT_UNARY_SLEEF(cosh_op, "cosh_vml_cpu", std::cosh(v), vec::FloatFunction::kCosh)
SYMBOLITE_FLOAT_UNARY(asinh_op, "asinh_cpu", std::asinh(v))
SYMBOLITE_FLOAT_UNARY(acosh_op, "acosh_cpu", std::acosh(v))
SYMBOLITE_FLOAT_UNARY(atanh_op, "atanh_cpu", std::atanh(v))
SYMBOLITE_FLOAT_UNARY_SLEEF(erf_op, "erf_vml_cpu", std::erf(v), vec::FloatFunction::kErf)
SYMBOLITE_FLOAT_UNARY_SLEEF(erfc_op, "erfc_vml_cpu", std::erfc(v), vec::FloatFunction::kErfc)
SYMBOLITE_FLOAT_UNARY(reciprocal_op, "reciprocal_cpu", 1 / v)
SYMBOLITE_FLOAT_UNARY_SLEEF(exp2_op, "exp2_cpu", std::exp2(v), vec::FloatFunction::kExp2)
// PyTorch multiplies by the constant's value in the element type.
SYMBOLITE_FLOAT_UNARY(deg2rad_op, "deg2rad", v* static_cast<decltype(v)>(M_PI / 180.0))
SYMBOLITE_FLOAT_UNARY(rad2deg_op, "rad2deg", v* static_cast<decltype(v)>(180.0 / M_PI))
// sin(pi x) / (pi x), 1 at 0.
SYMBOLITE_FLOAT_UNARY(sinc_op, "sinc_cpu",
                      v == 0 ? decltype(v)(1)
                             : std::sin(static_cast<decltype(v)>(M_PI) * v) /
                                   (static_cast<decltype(v)>(M_PI) * v))

#undef SYMBOLITE_FLOAT_UNARY
#undef SYMBOLITE_FLOAT_UNARY_SLEEF

void clamp(Stack& s) {
  IValue hi = pop(s), lo = pop(s);
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(clamp_scalars(x, lo, hi));
}
void clamp_min(Stack& s) {
  IValue lo = pop(s);
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(clamp_scalars(x, lo, IValue()));
}
void clamp_max(Stack& s) {
  IValue hi = pop(s);
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(clamp_scalars(x, IValue(), hi));
}

// logit(self, eps=None): log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
void logit(Stack& s) {
  IValue eps = pop(s);
  const Tensor x = pop(s).to_tensor();
  const double e = eps.is_none() ? -1.0 : eps.to_double();
  s.emplace_back(float_unary(x, "logit_cpu", [e](auto v) {
    using T = decltype(v);
    if (e >= 0)
      v = v < static_cast<T>(e)          ? static_cast<T>(e)
          : v > T(1) - static_cast<T>(e) ? T(1) - static_cast<T>(e)
                                         : v;
    return std::log(v / (T(1) - v));
  }));
}

// frac(self): x - trunc(x), floating tensors only.
void frac(Stack& s) {
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(dispatch_floating(x.dtype(), "frac_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(x, [](T v) { return v - std::trunc(v); });
  }));
}

// Tests of each element, a bool tensor: isnan, isinf, isfinite, isposinf, isneginf, signbit
// (integers are finite, never NaN, negative below zero).
template <typename Test>
void classify(Stack& s) {
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(dispatch_all(x.dtype(), Test::kName, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_map<T>(x, [](T v) -> bool { return Test{}(v); });
  }));
}
struct IsNan {
  static constexpr const char* kName = "isnan";
  template <typename T>
  bool operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
    return false;
  }
};
struct IsInf {
  static constexpr const char* kName = "isinf";
  template <typename T>
  bool operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>) return std::isinf(v);
    return false;
  }
};
struct IsFinite {
  static constexpr const char* kName = "isfinite";
  template <typename T>
  bool operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>) return std::isfinite(v);
    return true;
  }
};
struct IsPosInf {
  static constexpr const char* kName = "isposinf";
  template <typename T>
  bool operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>) return v == std::numeric_limits<T>::infinity();
    return false;
  }
};
struct IsNegInf {
  static constexpr const char* kName = "isneginf";
  template <typename T>
  bool operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>) return v == -std::numeric_limits<T>::infinity();
    return false;
  }
};
struct SignBit {
  static constexpr const char* kName = "signbit_cpu";
  template <typename T>
  bool operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::signbit(v);
    } else if constexpr (std::is_signed_v<T>) {
      return v < 0;
    } else {
      return false;
    }
  }
};

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
      {"sqrt", sqrt_op},   {"rsqrt", rsqrt_op},     {"log", log_op},
      {"log2", log2_op},   {"log10", log10_op},     {"log1p", log1p_op},
      {"expm1", expm1_op}, {"sin", sin_op},         {"cos", cos_op},
      {"tan", tan_op},     {"asin", asin_op},       {"acos", acos_op},
      {"atan", atan_op},   {"sinh", sinh_op},       {"cosh", cosh_op},
      {"asinh", asinh_op}, {"acosh", acosh_op},     {"atanh", atanh_op},
      {"erf", erf_op},     {"erfc", erfc_op},       {"reciprocal", reciprocal_op},
      {"exp2", exp2_op},   {"deg2rad", deg2rad_op}, {"rad2deg", rad2deg_op},
      {"sinc", sinc_op}};
  const std::pair<const char*, Kernel> in_place[] = {
      {"sqrt_", sqrt_op_},   {"rsqrt_", rsqrt_op_},     {"log_", log_op_},
      {"log2_", log2_op_},   {"log10_", log10_op_},     {"log1p_", log1p_op_},
      {"expm1_", expm1_op_}, {"sin_", sin_op_},         {"cos_", cos_op_},
      {"tan_", tan_op_},     {"asin_", asin_op_},       {"acos_", acos_op_},
      {"atan_", atan_op_},   {"sinh_", sinh_op_},       {"cosh_", cosh_op_},
      {"asinh_", asinh_op_}, {"acosh_", acosh_op_},     {"atanh_", atanh_op_},
      {"erf_", erf_op_},     {"erfc_", erfc_op_},       {"reciprocal_", reciprocal_op_},
      {"exp2_", exp2_op_},   {"deg2rad_", deg2rad_op_}, {"rad2deg_", rad2deg_op_},
      {"sinc_", sinc_op_}};
  for (const auto& [name, kernel] : functions) r.add({std::string("aten::") + name, 1, {}, kernel});
  for (const auto& [name, kernel] : in_place) r.add({std::string("aten::") + name, 1, {}, kernel});
  IValue none;
  r.add({"aten::clamp", 3, {none, none}, clamp});
  r.add({"aten::clamp_min", 2, {}, clamp_min});
  r.add({"aten::clamp_max", 2, {}, clamp_max});
  r.add({"aten::nan_to_num", 4, {none, none, none}, nan_to_num});
  r.add({"aten::logit", 2, {none}, logit});
  r.add({"aten::frac", 1, {}, frac});
  r.add({"aten::isnan", 1, {}, classify<IsNan>});
  r.add({"aten::isinf", 1, {}, classify<IsInf>});
  r.add({"aten::isfinite", 1, {}, classify<IsFinite>});
  r.add({"aten::isposinf", 1, {}, classify<IsPosInf>});
  r.add({"aten::isneginf", 1, {}, classify<IsNegInf>});
  r.add({"aten::signbit", 1, {}, classify<SignBit>});
}

}  // namespace symbolite::ops
