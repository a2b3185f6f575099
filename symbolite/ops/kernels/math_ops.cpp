// Elementwise math beyond arithmetic: abs, exp, clamp_, pow (tensor or number bases and
// exponents), sign, gcd and lcm, with PyTorch 1.13's dtypes, promotion and messages.
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// Every dtype but bool; integers wrap (abs of the most negative value is itself, as in
// PyTorch), floats lose their sign bit (-0.0 and NaN included).
Tensor abs_impl(const Tensor& x) {
  if (x.dtype() == DType::kBool) not_implemented("abs_cpu", x.dtype());
  return dispatch_numeric(x.dtype(), "abs_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      return unary_same<T>(x, [](T v) { return std::fabs(v); });
    } else if constexpr (std::is_unsigned_v<T>) {
      return unary_same<T>(x, [](T v) { return v; });
    } else {
      using U = std::make_unsigned_t<T>;
      return unary_same<T>(x, [](T v) {
        return v < 0 ? static_cast<T>(static_cast<U>(U{0} - static_cast<U>(v))) : v;
      });
    }
  });
}

// Integral and bool inputs compute in the default float dtype. Contiguous float32 goes
// through SLEEF (vector_math.h), as PyTorch's vectorized kernel does.
Tensor exp_impl(const Tensor& x) {
  if (!is_floating(x.dtype()) && !is_integral(x.dtype()) && x.dtype() != DType::kBool) {
    not_implemented("exp_vml_cpu", x.dtype());
  }
  DType compute = is_floating(x.dtype()) ? x.dtype() : DType::kFloat32;
  Tensor in = x.dtype() == compute ? x : to_dtype(x, compute);
  if (auto fast = map_contiguous_f32(in, vec::exp_f32)) return std::move(*fast);
  return dispatch_floating(compute, "exp_vml_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(in, [](T v) { return std::exp(v); });
  });
}

// clamp_(self, min=None, max=None). PyTorch's order: at least one bound; the result type of
// self and the bounds (Python numbers) must be self's own; no internal overlap; then each
// bound converts to self's element type with an overflow check. NaN stays NaN; min > max
// gives max everywhere.
void clamp_(Stack& s) {
  IValue max = pop(s), min = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  if (min.is_none() && max.is_none()) {
    fail("torch.clamp: At least one of 'min' or 'max' must not be None");
  }
  DType result = t.dtype();
  if (!is_floating(result)) {
    ResultType rt;
    rt.tensor(t);
    if (!min.is_none()) rt.scalar(min);
    if (!max.is_none()) rt.scalar(max);
    result = rt.result();
  }
  if (result != t.dtype()) {
    fail(fmt::format("result type {} can't be cast to the desired output type {}",
                     tensor::scalar_type_name(result), tensor::type_meta_name(t.dtype())));
  }
  check_no_internal_overlap(t);
  const char* kernel = min.is_none()   ? "clamp_max_scalar_cpu"
                       : max.is_none() ? "clamp_min_cpu"
                                       : "clamp_scalar_cpu";
  Tensor out = dispatch_numeric(t.dtype(), kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    bool has_lo = !min.is_none(), has_hi = !max.is_none();
    T lo = has_lo ? checked_value<T>(min) : T{};
    T hi = has_hi ? checked_value<T>(max) : T{};
    return unary_same<T>(t, [=](T v) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(v)) return v;
      }
      if (has_lo && v < lo) v = lo;
      if (has_hi && v > hi) v = hi;
      return v;
    });
  });
  push_in_place(s, self, out);
}

// base ** exponent for integers as PyTorch's powi: repeated squaring, wrapping (in the unsigned
// type: no signed overflow); a negative exponent gives 1 for a base of 1, +-1 for -1 (by the
// exponent's parity), else 0.
template <typename T>
T integer_power(T base, std::int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if constexpr (std::is_signed_v<T>) {
      if (base == -1) return static_cast<T>(exponent % 2 == 0 ? 1 : -1);
    }
    return 0;
  }
  using U = std::make_unsigned_t<T>;
  U result = 1, square = static_cast<U>(base);
  for (auto e = static_cast<std::uint64_t>(exponent); e > 0; e >>= 1) {
    if (e & 1) result = static_cast<U>(result * square);
    square = static_cast<U>(square * square);
  }
  return static_cast<T>(result);
}

// pow.Tensor_Scalar: in the promoted dtype of self and the exponent (an int tensor to a
// float power is float32); integers by repeated multiplication (wrapping), and never to a
// negative integer power.
Tensor pow_scalar_impl(const Tensor& self, const IValue& exponent) {
  DType common = ResultType().tensor(self).scalar(exponent).result();
  Tensor x = self.dtype() == common ? self : to_dtype(self, common);
  if (common == DType::kBool) not_implemented("pow", common);
  return dispatch_numeric(common, "pow", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      // PyTorch's pow_tensor_scalar_optimized_kernel: products, square roots and divisions for
      // its special exponents, the vector pow (SLEEF's) for the others.
      T e = scalar_as<T>(exponent);
      if (e == T(2)) {
        if (auto fast = map_contiguous_f32(x, [](const float* in, float* out, std::int64_t n) {
              vec::float_function_f32(vec::FloatFunction::kSquare, in, out, n);
            })) {
          return std::move(*fast);
        }
        return unary_same<T>(x, [](T v) { return v * v; });
      }
      if (e == T(3)) return unary_same<T>(x, [](T v) { return v * v * v; });
      if (e == T(0.5)) return unary_same<T>(x, [](T v) { return std::sqrt(v); });
      if (e == T(-0.5)) return unary_same<T>(x, [](T v) { return T(1) / std::sqrt(v); });
      if (e == T(-1)) return unary_same<T>(x, [](T v) { return T(1) / v; });
      if (e == T(-2)) return unary_same<T>(x, [](T v) { return T(1) / (v * v); });
      if (e == T(1)) return unary_same<T>(x, [](T v) { return v; });
      if constexpr (std::is_same_v<T, float>) {
        if (auto fast = map_contiguous_f32(x, [e](const float* in, float* out, std::int64_t n) {
              vec::pow_f32(in, out, n, e);
            })) {
          return std::move(*fast);
        }
      }
      return unary_same<T>(x, [e](T v) { return std::pow(v, e); });
    } else {
      std::int64_t e = scalar_as<std::int64_t>(exponent);
      if (e < 0) fail("Integers to negative integer powers are not allowed.");
      if constexpr (std::is_same_v<T, bool>) {
        not_implemented("pow", common);  // (refused above)
      } else {
        return unary_same<T>(x, [e](T v) { return integer_power(v, e); });
      }
    }
  });
}

// pow.Tensor_Tensor: elementwise base ** exponent, broadcast, in their promoted dtype (floats
// by std::pow, integers by integer_power; bool is refused, as PyTorch's kernel lacks it).
Tensor pow_tensors(const Tensor& base, const Tensor& exponent, tensor::DType common) {
  if (common == DType::kBool) not_implemented("pow", common);
  return dispatch_numeric(common, "pow", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      return binary_kernel<T>(base, exponent, [](T a, T b) { return std::pow(a, b); });
    } else if constexpr (std::is_same_v<T, bool>) {
      not_implemented("pow", common);  // (refused above; bool has no integer power)
    } else {
      return binary_kernel<T>(
          base, exponent, [](T a, T b) { return integer_power(a, static_cast<std::int64_t>(b)); });
    }
  });
}

// sign: -1, 0 or 1 in self's dtype (NaN gives 0); bool is itself.
Tensor sign_impl(const Tensor& x) {
  if (x.dtype() == DType::kBool) return x.contiguous();
  return dispatch_numeric(x.dtype(), "sign_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(x, [](T v) {
      return static_cast<T>(static_cast<int>(T(0) < v) - static_cast<int>(v < T(0)));
    });
  });
}

void pow_tensor_scalar(Stack& s) {
  IValue exponent = pop(s), self = pop(s);
  s.emplace_back(pow_scalar_impl(self.to_tensor(), exponent));
}
void pow__scalar(Stack& s) {
  IValue exponent = pop(s), self = pop(s);
  Tensor result = pow_scalar_impl(self.to_tensor(), exponent);
  if (result.dtype() != self.to_tensor().dtype()) {
    fail(fmt::format("Found dtype {} but expected {}",
                     tensor::scalar_type_name(self.to_tensor().dtype()),
                     tensor::scalar_type_name(result.dtype())));
  }
  push_in_place(s, self, result);
}
// pow.Tensor_Tensor(self, exponent) and pow.Scalar(self, exponent), a number to tensor powers:
// the number a 0-dim tensor of the result dtype (which the number and the tensor decide).
void pow_tensor_tensor(Stack& s) {
  IValue exponent = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = exponent.to_tensor();
  s.emplace_back(pow_tensors(a, b, ResultType().tensor(a).tensor(b).result()));
}
void pow_scalar_tensor(Stack& s) {
  IValue exponent = pop(s), self = pop(s);
  const Tensor& b = exponent.to_tensor();
  const DType common = ResultType().scalar(self).tensor(b).result();
  s.emplace_back(pow_tensors(scalar_tensor(self, common), b, common));
}
// pow_.Tensor(self, exponent): into self, whose dtype the promoted one must cast to.
void pow__tensor(Stack& s) {
  IValue exponent = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = exponent.to_tensor();
  const DType common = ResultType().tensor(a).tensor(b).result();
  if (!can_cast(common, a.dtype())) {
    fail(fmt::format("result type {} can't be cast to the desired output type {}",
                     tensor::scalar_type_name(common), tensor::scalar_type_name(a.dtype())));
  }
  Tensor result = pow_tensors(a, b, common);
  push_in_place(s, self, result.dtype() == a.dtype() ? result : to_dtype(result, a.dtype()));
}

void sign(Stack& s) { s.emplace_back(sign_impl(pop(s).to_tensor())); }
void sign_(Stack& s) {
  IValue self = pop(s);
  push_in_place(s, self, sign_impl(self.to_tensor()));
}

void abs(Stack& s) { s.emplace_back(abs_impl(pop(s).to_tensor())); }
void exp(Stack& s) { s.emplace_back(exp_impl(pop(s).to_tensor())); }

// gcd / lcm of integer tensors (broadcast, in their promoted dtype), by PyTorch's calc_gcd:
// Euclid on the absolute values; lcm is |a / gcd * b|, 0 when both are.
template <typename T>
T gcd_of(T a, T b) {
  a = a < 0 ? wrapping_neg(a) : a;  // std::abs, as PyTorch's: INT64_MIN stays itself
  b = b < 0 ? wrapping_neg(b) : b;
  while (a != 0) {
    const T c = a;
    a = static_cast<T>(b % a);
    b = c;
  }
  return b;
}
template <bool kLcm>
void gcd_lcm(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  const char* kernel = kLcm ? "lcm_cpu" : "gcd_cpu";
  const DType dtype = ResultType().tensor(a).tensor(b).result();
  s.emplace_back(dispatch_numeric(dtype, kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, bool>) {
      not_implemented(kernel, dtype);
    } else {
      return binary_kernel<T>(a, b, [](T x, T y) -> T {
        const T g = gcd_of(x, y);
        if constexpr (!kLcm) {
          return g;
        } else {
          if (g == 0) return T{0};
          const T m = wrapping_mul(static_cast<T>(x / g), y);
          return m < 0 ? wrapping_neg(m) : m;
        }
      });
    }
  }));
}

}  // namespace

void register_math_ops(OperatorRegistry& r) {
  IValue none;
  r.add({"aten::abs", 1, {}, abs});
  r.add({"aten::pow.Tensor_Scalar", 2, {}, pow_tensor_scalar});
  r.add({"aten::pow_.Scalar", 2, {}, pow__scalar});
  r.add({"aten::pow.Tensor_Tensor", 2, {}, pow_tensor_tensor});
  r.add({"aten::pow.Scalar", 2, {}, pow_scalar_tensor});
  r.add({"aten::pow_.Tensor", 2, {}, pow__tensor});
  r.add({"aten::sign", 1, {}, sign});
  r.add({"aten::sgn", 1, {}, sign});  // sign, for real tensors
  r.add({"aten::sign_", 1, {}, sign_});
  r.add({"aten::exp", 1, {}, exp});
  r.add({"aten::clamp_", 3, {none, none}, clamp_});
  r.add({"aten::gcd", 2, {}, gcd_lcm<false>});
  r.add({"aten::lcm", 2, {}, gcd_lcm<true>});
}

}  // namespace symbolite::ops
