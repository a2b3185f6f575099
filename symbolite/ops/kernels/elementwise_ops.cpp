// Elementwise tensor arithmetic, comparisons and activations, with PyTorch 1.13's type
// promotion (type_promotion.h), broadcasting and messages.
//
// A binary op computes in the common dtype of its operands into a new contiguous tensor of
// the broadcast shape. In-place variants compute out of place, then write into self
// (assign_in_place: PyTorch's shape and cast checks; copy-on-write for read-only parameters).
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "symbolite/ops/common/activation.h"
#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/clamp_scalars.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

DType common_dtype(const Tensor& a, const Tensor& b) {
  return ResultType().tensor(a).tensor(b).result();
}

// A Scalar operand as PyTorch wraps it: a zero-dim tensor of the Scalar's dtype; the
// promotion must go through ResultType::scalar, which callers do via `common_with_scalar`.
DType common_with_scalar(const Tensor& a, const IValue& s) {
  return ResultType().tensor(a).scalar(s).result();
}

// PyTorch's alpha_check.
void check_alpha(DType common, const IValue& alpha) {
  if (alpha.is(IValue::Kind::kBool) && common != DType::kBool) {
    fail("Boolean alpha only supported for Boolean results.");
  }
  if (!is_floating(common) && alpha.is(IValue::Kind::kDouble)) {
    fail("For integral input tensors, argument alpha must not be a floating point number.");
  }
}

// PyTorch's sub_check (a Scalar operand counts with its own dtype).
void check_sub(DType a, DType b) {
  if (a == DType::kBool && b == DType::kBool) {
    fail(
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
        "`logical_xor()` operator instead.");
  }
  if (a == DType::kBool || b == DType::kBool) {
    fail(
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
        "to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
}

// a + alpha * b in `common` (floats in one fused multiply-add, as PyTorch's kernel); `negate`
// for sub (a - alpha * b); `in_place` for a += alpha * b (binary_kernel).
Tensor add_impl(const Tensor& a, const Tensor& b, DType common, const IValue& alpha, bool negate,
                bool in_place, SpareOperands spare = {}) {
  std::vector<std::int64_t> shape = tensor::broadcast_shapes(a.sizes(), b.sizes());
  (void)shape;
  check_alpha(common, alpha);
  return dispatch_all(common, "add", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      bool al = scalar_as<bool>(alpha);
      return binary_kernel<T>(a, b, [al](bool x, bool y) -> bool { return x || (al && y); });
    } else {
      T al = checked_value<T>(alpha);
      if (negate) al = wrapping_neg(al);  // as PyTorch's -alpha wraps
      if (al == T{1}) {
        return binary_kernel<T>(
            a, b, [](T x, T y) -> T { return wrapping_add(x, y); }, in_place, spare);
      }
      if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>) {
        if (al == T{-1}) {  // x - y: the bits of fma(y, -1, x), without the multiply
          return binary_kernel<T>(
              a, b, [](T x, T y) -> T { return wrapping_sub(x, y); }, in_place, spare);
        }
      }
      if constexpr (std::is_floating_point_v<T>) {
        // PyTorch's kernel rounds once: vec::fmadd(b, alpha, a), and its scalar loop contracts.
        return binary_kernel<T>(
            a, b, [al](T x, T y) -> T { return std::fma(y, al, x); }, in_place, spare);
      }
      return binary_kernel<T>(
          a, b, [al](T x, T y) -> T { return wrapping_add(x, wrapping_mul(al, y)); }, in_place,
          spare);
    }
  });
}

// The operand pair of a `.Tensor` or `.Scalar` overload, and which of them the result may be
// written over (out-of-place overloads only).
struct Operands {
  Tensor a;
  Tensor b;
  DType common;
  SpareOperands spare;
};

Operands tensor_operands(const IValue& self, const IValue& other) {
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  // Asked before the copies below take a second reference to the storage.
  const SpareOperands spare{self.holds_unshared_tensor(), other.holds_unshared_tensor()};
  return {a, b, common_dtype(a, b), spare};
}

Operands scalar_operands(const IValue& self, const IValue& other) {
  const Tensor& a = self.to_tensor();
  const SpareOperands spare{self.holds_unshared_tensor(), false};
  DType common = common_with_scalar(a, other);
  return {a, scalar_tensor(other, common), common, spare};
}

// The operators below: with `in_place`, o.a op= o.b (binary_kernel).
Tensor add_op(const Operands& o, const IValue& alpha, bool in_place = false) {
  return add_impl(o.a, o.b, o.common, alpha, false, in_place, o.spare);
}

Tensor sub_op(const Operands& o, DType other_dtype, const IValue& alpha, bool in_place = false) {
  check_sub(o.a.dtype(), other_dtype);
  return add_impl(o.a, o.b, o.common, alpha, true, in_place, o.spare);
}

// x * s (or s * x) where s is x's shape up to some dimension and ones after it, both float32
// and contiguous: each of s's values scales a run of x (an SE block's x * scale[N, C, 1, 1]).
// A vector loop a run (vec::scale_rows_f32), where binary_kernel's loop over a row of the
// broadcast is scalar; written over x where x is spare. nullopt for other operands.
std::optional<Tensor> mul_by_runs_f32(const Operands& o) {
  constexpr DType kF32 = DType::kFloat32;
  if (o.common != kF32 || o.a.dtype() != kF32 || o.b.dtype() != kF32) return std::nullopt;
  for (const bool swapped : {false, true}) {
    const Tensor& x = swapped ? o.b : o.a;
    const Tensor& s = swapped ? o.a : o.b;
    if (x.dim() == 0 || x.dim() != s.dim() || x.numel() == 0 || !x.is_contiguous() ||
        !s.is_contiguous()) {
      continue;
    }
    std::size_t d = 0;
    while (d < x.sizes().size() && s.sizes()[d] == x.sizes()[d]) ++d;
    // d == dim: the same shape, binary_kernel's contiguous loop.
    if (d == x.sizes().size() ||
        !std::all_of(s.sizes().begin() + static_cast<std::ptrdiff_t>(d), s.sizes().end(),
                     [](std::int64_t size) { return size == 1; })) {
      continue;
    }
    const bool spare = swapped ? o.spare.b : o.spare.a;
    Tensor out =
        spare && can_write_over<float>(x, x.sizes()) ? x : Tensor::uninitialized(x.sizes(), kF32);
    const std::int64_t rows = s.numel();
    vec::scale_rows_f32(x.data<float>(), s.data<float>(), out.mutable_data<float>(), rows,
                        x.numel() / rows);
    return out;
  }
  return std::nullopt;
}

Tensor mul_op(const Operands& o, bool in_place = false) {
  if (!in_place) {
    if (std::optional<Tensor> scaled = mul_by_runs_f32(o)) return *std::move(scaled);
  }
  return dispatch_all(o.common, "mul", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return binary_kernel<T>(o.a, o.b, [](bool x, bool y) { return x && y; });
    } else {
      return binary_kernel<T>(
          o.a, o.b, [](T x, T y) -> T { return wrapping_mul(x, y); }, in_place, o.spare);
    }
  });
}

// True division: integral and bool operands compute in the default float dtype.
// A float32 division whose operands are a contiguous tensor and one of its shape or a single
// element, in vectors (vector_math.h: the same bits); nullopt for anything else. The result
// goes where binary_kernel would put it.
std::optional<Tensor> divide_float32(const Operands& o, bool in_place) {
  const Tensor& a = o.a;
  const Tensor& b = o.b;
  if (a.dtype() != DType::kFloat32 || b.dtype() != DType::kFloat32 || !a.is_contiguous()) {
    return std::nullopt;
  }
  const bool same = b.sizes() == a.sizes() && b.is_contiguous();
  if (!same && (b.numel() != 1 || b.dim() > a.dim())) return std::nullopt;
  Tensor out;
  if (in_place) {
    if (!writes_into_self<float>(a, b)) return std::nullopt;
    out = a;
  } else if (o.spare.a && can_write_over<float>(a, a.sizes())) {
    out = a;
  } else if (same && o.spare.b && can_write_over<float>(b, a.sizes())) {
    out = b;
  } else {
    out = Tensor::uninitialized(a.sizes(), DType::kFloat32);
  }
  float* dst = out.mutable_data<float>();
  if (same) {
    vec::divide_f32(a.data<float>(), b.data<float>(), dst, a.numel());
  } else {
    vec::divide_f32(a.data<float>(), *b.data<float>(), dst, a.numel());
  }
  return out;
}

Tensor div_op(const Operands& o, bool in_place = false) {
  DType compute = is_floating(o.common) ? o.common : DType::kFloat32;
  if (compute == DType::kFloat32) {
    if (auto fast = divide_float32(o, in_place)) return std::move(*fast);
  }
  return dispatch_floating(compute, "div_true_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(
        o.a, o.b, [](T x, T y) -> T { return x / y; }, in_place, o.spare);
  });
}

template <typename Cmp>
Tensor compare_op(const Operands& o, std::string_view kernel) {
  return dispatch_all(o.common, kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(o.a, o.b, [](T x, T y) -> bool { return Cmp{}(x, y); });
  });
}

// --- kernels ---------------------------------------------------------------------------

void add_tensor(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  s.emplace_back(add_op(tensor_operands(self, other), alpha));
}
void add_scalar(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  s.emplace_back(add_op(scalar_operands(self, other), alpha));
}
void sub_tensor(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  s.emplace_back(sub_op(tensor_operands(self, other), other.to_tensor().dtype(), alpha));
}
void sub_scalar(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  s.emplace_back(sub_op(scalar_operands(self, other), scalar_dtype(other), alpha));
}
// rsub(self, other, alpha) = other - alpha * self
void rsub_tensor(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  s.emplace_back(sub_op(tensor_operands(other, self), self.to_tensor().dtype(), alpha));
}
void rsub_scalar(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  Operands o = scalar_operands(self, other);
  check_sub(scalar_dtype(other), o.a.dtype());
  s.emplace_back(add_impl(o.b, o.a, o.common, alpha, true, false));
}
void mul_tensor(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(mul_op(tensor_operands(self, other)));
}
void mul_scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(mul_op(scalar_operands(self, other)));
}
void div_tensor(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(div_op(tensor_operands(self, other)));
}
void div_scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(div_op(scalar_operands(self, other)));
}

// In place: PyTorch checks the written-to tensor for internal overlap first, then for partial
// overlap with the other operand, then shapes and the cast (push_in_place).
void add__tensor(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  check_no_partial_overlap(self.to_tensor(), other.to_tensor());
  push_in_place(s, self, add_op(tensor_operands(self, other), alpha, true));
}
void add__scalar(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  push_in_place(s, self, add_op(scalar_operands(self, other), alpha, true));
}
void sub__tensor(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  check_no_partial_overlap(self.to_tensor(), other.to_tensor());
  push_in_place(s, self,
                sub_op(tensor_operands(self, other), other.to_tensor().dtype(), alpha, true));
}
void sub__scalar(Stack& s) {
  IValue alpha = pop(s), other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  push_in_place(s, self, sub_op(scalar_operands(self, other), scalar_dtype(other), alpha, true));
}
void mul__tensor(Stack& s) {
  IValue other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  check_no_partial_overlap(self.to_tensor(), other.to_tensor());
  push_in_place(s, self, mul_op(tensor_operands(self, other), true));
}
void mul__scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  push_in_place(s, self, mul_op(scalar_operands(self, other), true));
}
void div__tensor(Stack& s) {
  IValue other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  check_no_partial_overlap(self.to_tensor(), other.to_tensor());
  push_in_place(s, self, div_op(tensor_operands(self, other), true));
}
void div__scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  push_in_place(s, self, div_op(scalar_operands(self, other), true));
}

template <typename Cmp, const char* kKernel>
void compare_tensor(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(compare_op<Cmp>(tensor_operands(self, other), kKernel));
}
template <typename Cmp, const char* kKernel>
void compare_scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(compare_op<Cmp>(scalar_operands(self, other), kKernel));
}

constexpr char kEq[] = "eq_cpu";
constexpr char kNe[] = "ne_cpu";
constexpr char kLt[] = "lt_cpu";
constexpr char kLe[] = "le_cpu";
constexpr char kGt[] = "gt_cpu";
constexpr char kGe[] = "ge_cpu";

// --- unary ------------------------------------------------------------------------------

// Ops with a vectorized float32 implementation (vector_math.h) take it for contiguous input.
template <typename Op>
concept HasVectorF32 = requires(const float* in, float* out, std::int64_t n) {
  Op::vector_f32(in, out, n);
};

template <typename Op>
std::optional<Tensor> try_vector_f32(const Tensor& x) {
  if constexpr (HasVectorF32<Op>) return map_contiguous_f32(x, Op::vector_f32);
  return std::nullopt;
}

// Floating unary ops that promote integral and bool inputs to the default float dtype
// (sigmoid, tanh).
template <typename Op>
Tensor unary_float(const Tensor& x, std::string_view kernel, Op op) {
  DType compute = is_floating(x.dtype()) ? x.dtype() : DType::kFloat32;
  if (!is_floating(x.dtype()) && x.dtype() != DType::kBool && !is_integral(x.dtype())) {
    not_implemented(kernel, x.dtype());
  }
  Tensor in = x.dtype() == compute ? x : to_dtype(x, compute);
  return dispatch_floating(compute, kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(in, [&](T v) { return static_cast<T>(op(v)); });
  });
}

// Floating-only unary ops (hardswish, silu, gelu, ...): other dtypes fail as PyTorch's
// dispatch does.
template <typename Op>
Tensor unary_floating_only(const Tensor& x, std::string_view kernel, Op op) {
  if (auto fast = try_vector_f32<Op>(x)) return std::move(*fast);
  return dispatch_floating(x.dtype(), kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(x, [&](T v) { return static_cast<T>(op(v)); });
  });
}

struct Sigmoid {
  template <typename T>
  T operator()(T v) const {
    return T(1) / (T(1) + std::exp(-v));
  }
  static void vector_f32(const float* in, float* out, std::int64_t n) {
    vec::sigmoid_f32(in, out, n);
  }
};
struct Tanh {
  template <typename T>
  T operator()(T v) const {
    return std::tanh(v);
  }
  static void vector_f32(const float* in, float* out, std::int64_t n) { vec::tanh_f32(in, out, n); }
};
struct Hardswish {
  template <typename T>
  T operator()(T v) const {
    return v * std::min(std::max(v + T(3), T(0)), T(6)) / T(6);
  }
  static void vector_f32(const float* in, float* out, std::int64_t n) {
    vec::hardswish_f32(in, out, n);
  }
};
struct Hardsigmoid {
  template <typename T>
  T operator()(T v) const {
    return hardsigmoid_value(v);
  }
  static void vector_f32(const float* in, float* out, std::int64_t n) {
    vec::hardsigmoid_f32(in, out, n);
  }
};
struct Silu {
  template <typename T>
  T operator()(T v) const {
    return v / (T(1) + std::exp(-v));
  }
  static void vector_f32(const float* in, float* out, std::int64_t n) { vec::silu_f32(in, out, n); }
};

Tensor relu_impl(const Tensor& x) {
  if (x.dtype() == DType::kBool) fail("Boolean inputs not supported for relu");
  return dispatch_numeric(x.dtype(), "clamp_min_scalar_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(x, [](T v) { return relu_value(v); });
  });
}

// PyTorch 1.13's hardtanh_out: an integer tensor's limits as int64 first (no type promotion;
// uint8's not negative), then clamp's (clamp_scalars.h: a NaN limit makes every element NaN).
Tensor hardtanh_impl(const Tensor& x, const IValue& min_val, const IValue& max_val) {
  if (x.dtype() == DType::kBool) fail("Bool inputs not supported for hardtanh");
  if (is_floating(x.dtype())) return clamp_scalars(x, min_val, max_val);
  const IValue min_limit(checked_value<std::int64_t>(min_val));
  const IValue max_limit(checked_value<std::int64_t>(max_val));
  if (x.dtype() == DType::kUInt8 && (min_limit.to_int() < 0 || max_limit.to_int() < 0)) {
    fail("cannot do hardtanh on an unsigned type with negative limits");
  }
  return clamp_scalars(x, min_limit, max_limit);
}

// GELU in T, as PyTorch 1.13's scalar loop computes it (std::erf / std::tanh; its build
// fuses x + kappa * x^3 into one fma).
template <typename T>
T gelu_scalar(T x, bool tanh_approx) {
  if (tanh_approx) {
    const auto beta = static_cast<T>(vec::kGeluBeta);
    const auto kappa = static_cast<T>(vec::kGeluKappa);
    const T inner = beta * std::fma(kappa, x * x * x, x);
    return T(0.5) * x * (T(1) + std::tanh(inner));
  }
  return x * T(0.5) * (T(1) + std::erf(x * static_cast<T>(vec::kSqrtHalf)));
}

// PyTorch 1.13 hands a contiguous float32 tensor of more than one element to oneDNN when
// approximate is "none" (use_mkldnn in gelu_out_cpu), every element alike: vec::gelu_f32.
// The rest goes to ATen's GeluKernelImpl, whose vectorized loop covers a contiguous input in
// blocks of two AVX2 vectors (16 floats, 8 doubles) and its scalar loop the rest, or the whole
// of an input that is not contiguous. The loops differ in their last bits, so the same elements
// go the same way here: vec::gelu_* for the blocks, gelu_scalar for the rest. (With more than
// one thread PyTorch splits an input past 16384 elements into chunks, each with a scalar rest
// of its own; here the result is PyTorch's with one thread, the same at every thread count.)
// `out` may be `in` (gelu_impl's over_input): each element is computed once, from its own.
template <typename T>
void gelu_contiguous(const T* in, T* out, std::int64_t n, bool tanh_approx) {
  constexpr std::int64_t kBlock = 2 * 32 / static_cast<std::int64_t>(sizeof(T));
  const std::int64_t blocks = n - n % kBlock;
  if constexpr (std::is_same_v<T, float>) {
    if (!tanh_approx && n > 1) return vec::gelu_f32(in, out, n);
    if (tanh_approx) vec::gelu_tanh_f32(in, out, blocks);
  } else {
    (tanh_approx ? vec::gelu_tanh_f64 : vec::gelu_f64)(in, out, blocks);
  }
  for (std::int64_t i = blocks; i < n; ++i) out[i] = gelu_scalar(in[i], tanh_approx);
}

// With `over_input` (a spare float32 input, spare_float32), the result is written over x.
Tensor gelu_impl(const Tensor& x, const std::string& approximate, bool over_input = false) {
  if (approximate != "none" && approximate != "tanh") {
    fail("approximate argument must be either none or tanh.");
  }
  const bool tanh_approx = approximate == "tanh";
  return dispatch_floating(x.dtype(), "GeluKernelImpl", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if (x.is_contiguous()) {
      Tensor out = over_input ? x : Tensor::uninitialized(x.sizes(), x.dtype());
      gelu_contiguous<T>(x.template data<T>(), out.template mutable_data<T>(), x.numel(),
                         tanh_approx);
      return out;
    }
    return unary_same<T>(x, [tanh_approx](T v) { return gelu_scalar(v, tanh_approx); });
  });
}

// Computed in double (then rounded) unless a vectorized float32 path applies.
template <typename Op, const char* kKernel>
Tensor float_unary_impl(const Tensor& x) {
  if (auto fast = try_vector_f32<Op>(x)) return std::move(*fast);
  return unary_float(x, kKernel, [](auto v) {
    using T = decltype(v);
    return static_cast<T>(Op{}(static_cast<double>(v)));
  });
}
// In-place float32 ops on a writable contiguous tensor write straight into it (every alias
// sees the values, as in PyTorch); anything else computes a result and assigns it.
bool writes_in_place(const Tensor& t) {
  return t.dtype() == DType::kFloat32 && t.is_contiguous() && !t.storage().is_view();
}

// An out-of-place op's input that nothing but the op refers to (moved onto the stack at its
// last use: `F.relu(x)`, `torch.sigmoid(x)`, `nn.ReLU6()`) is computed over as the in-place op
// would, with the same values: no new buffer, and the values are still in cache. Not a nested
// tensor, whose marker a new result drops.
bool spare_float32(const IValue& v) {
  return v.holds_unshared_tensor() && writes_in_place(v.to_tensor()) &&
         v.to_tensor().nested_lengths() == nullptr;
}

template <typename Op, const char* kKernel>
void float_unary_(Stack& s) {
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  if constexpr (HasVectorF32<Op>) {
    if (writes_in_place(t)) {
      float* p = t.mutable_data<float>();
      Op::vector_f32(p, p, t.numel());
      s.push_back(std::move(self));
      return;
    }
  }
  push_in_place(s, self, float_unary_impl<Op, kKernel>(t));
}
template <typename Op, const char* kKernel>
void float_unary(Stack& s) {
  if constexpr (HasVectorF32<Op>) {
    if (spare_float32(s.back())) return float_unary_<Op, kKernel>(s);
  }
  IValue self = pop(s);
  s.emplace_back(float_unary_impl<Op, kKernel>(self.to_tensor()));
}
template <typename Op, const char* kKernel>
void floating_only_(Stack& s) {
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  if (writes_in_place(t)) {
    float* p = t.mutable_data<float>();
    if constexpr (HasVectorF32<Op>) {
      Op::vector_f32(p, p, t.numel());
    } else {
      parallel_for(t.numel(), kElementsPerThread, [p](std::int64_t begin, std::int64_t end) {
        Op op;
        for (std::int64_t i = begin; i < end; ++i) p[i] = static_cast<float>(op(p[i]));
      });
    }
    s.push_back(std::move(self));
    return;
  }
  push_in_place(s, self, unary_floating_only(t, kKernel, Op{}));
}
template <typename Op, const char* kKernel>
void floating_only(Stack& s) {
  if (spare_float32(s.back())) return floating_only_<Op, kKernel>(s);
  IValue self = pop(s);
  s.emplace_back(unary_floating_only(self.to_tensor(), kKernel, Op{}));
}

constexpr char kSigmoid[] = "sigmoid_cpu";
constexpr char kTanh[] = "tanh_cpu";
constexpr char kHardswish[] = "hardswish_cpu";
constexpr char kHardsigmoid[] = "hardsigmoid_cpu";
constexpr char kSilu[] = "silu_cpu";

void relu_(Stack& s) {
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  if (writes_in_place(t)) {
    apply_activation_f32(Activation::kRelu, t.mutable_data<float>(), t.numel());
    s.push_back(std::move(self));
    return;
  }
  push_in_place(s, self, relu_impl(t));
}
void relu(Stack& s) {
  if (spare_float32(s.back())) return relu_(s);
  s.emplace_back(relu_impl(pop(s).to_tensor()));
}
void hardtanh_(Stack& s) {
  IValue hi = pop(s), lo = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  // ReLU6 (MobileNet v2) on a writable float32 tensor: in place, in vectors, the same values.
  if (writes_in_place(t) && fusable_activation("aten::hardtanh_", std::array{lo, hi})) {
    apply_activation_f32(Activation::kRelu6, t.mutable_data<float>(), t.numel());
    s.push_back(std::move(self));
    return;
  }
  push_in_place(s, self, hardtanh_impl(t, lo, hi));
}
void hardtanh(Stack& s) {
  const std::size_t n = s.size();
  if (spare_float32(s[n - 3]) &&
      fusable_activation("aten::hardtanh_", std::array{s[n - 2], s[n - 1]})) {
    return hardtanh_(s);
  }
  IValue hi = pop(s), lo = pop(s), self = pop(s);
  s.emplace_back(hardtanh_impl(self.to_tensor(), lo, hi));
}
void gelu(Stack& s) {
  IValue approximate = pop(s), self = pop(s);
  s.emplace_back(gelu_impl(self.to_tensor(), approximate.to_string(), spare_float32(self)));
}
void gelu_(Stack& s) {
  IValue approximate = pop(s), self = pop(s);
  push_in_place(s, self, gelu_impl(self.to_tensor(), approximate.to_string()));
}
void neg(Stack& s) {
  const Tensor x = pop(s).to_tensor();
  if (x.dtype() == DType::kBool) {
    fail(
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  s.emplace_back(dispatch_numeric(x.dtype(), "neg_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(x, [](T v) { return wrapping_neg(v); });
  }));
}

}  // namespace

void register_elementwise_ops(OperatorRegistry& r) {
  IValue one(std::int64_t{1});
  r.add({"aten::add.Tensor", 3, {one}, add_tensor});
  r.add({"aten::add.Scalar", 3, {one}, add_scalar});
  r.add({"aten::sub.Tensor", 3, {one}, sub_tensor});
  r.add({"aten::sub.Scalar", 3, {one}, sub_scalar});
  r.add({"aten::rsub.Tensor", 3, {one}, rsub_tensor});
  r.add({"aten::rsub.Scalar", 3, {one}, rsub_scalar});
  r.add({"aten::mul.Tensor", 2, {}, mul_tensor});
  r.add({"aten::mul.Scalar", 2, {}, mul_scalar});
  r.add({"aten::div.Tensor", 2, {}, div_tensor});
  r.add({"aten::div.Scalar", 2, {}, div_scalar});
  r.add({"aten::add_.Tensor", 3, {one}, add__tensor});
  r.add({"aten::add_.Scalar", 3, {one}, add__scalar});
  r.add({"aten::sub_.Tensor", 3, {one}, sub__tensor});
  r.add({"aten::sub_.Scalar", 3, {one}, sub__scalar});
  r.add({"aten::mul_.Tensor", 2, {}, mul__tensor});
  r.add({"aten::mul_.Scalar", 2, {}, mul__scalar});
  r.add({"aten::div_.Tensor", 2, {}, div__tensor});
  r.add({"aten::div_.Scalar", 2, {}, div__scalar});

  r.add({"aten::eq.Tensor", 2, {}, compare_tensor<std::equal_to<>, kEq>});
  r.add({"aten::ne.Tensor", 2, {}, compare_tensor<std::not_equal_to<>, kNe>});
  r.add({"aten::lt.Tensor", 2, {}, compare_tensor<std::less<>, kLt>});
  r.add({"aten::le.Tensor", 2, {}, compare_tensor<std::less_equal<>, kLe>});
  r.add({"aten::gt.Tensor", 2, {}, compare_tensor<std::greater<>, kGt>});
  r.add({"aten::ge.Tensor", 2, {}, compare_tensor<std::greater_equal<>, kGe>});
  r.add({"aten::eq.Scalar", 2, {}, compare_scalar<std::equal_to<>, kEq>});
  r.add({"aten::ne.Scalar", 2, {}, compare_scalar<std::not_equal_to<>, kNe>});
  r.add({"aten::lt.Scalar", 2, {}, compare_scalar<std::less<>, kLt>});
  r.add({"aten::le.Scalar", 2, {}, compare_scalar<std::less_equal<>, kLe>});
  r.add({"aten::gt.Scalar", 2, {}, compare_scalar<std::greater<>, kGt>});
  r.add({"aten::ge.Scalar", 2, {}, compare_scalar<std::greater_equal<>, kGe>});

  r.add({"aten::relu", 1, {}, relu});
  r.add({"aten::relu_", 1, {}, relu_});
  r.add({"aten::sigmoid", 1, {}, float_unary<Sigmoid, kSigmoid>});
  r.add({"aten::sigmoid_", 1, {}, float_unary_<Sigmoid, kSigmoid>});
  r.add({"aten::tanh", 1, {}, float_unary<Tanh, kTanh>});
  r.add({"aten::tanh_", 1, {}, float_unary_<Tanh, kTanh>});
  r.add({"aten::hardswish", 1, {}, floating_only<Hardswish, kHardswish>});
  r.add({"aten::hardswish_", 1, {}, floating_only_<Hardswish, kHardswish>});
  r.add({"aten::hardsigmoid", 1, {}, floating_only<Hardsigmoid, kHardsigmoid>});
  r.add({"aten::hardsigmoid_", 1, {}, floating_only_<Hardsigmoid, kHardsigmoid>});
  r.add({"aten::silu", 1, {}, floating_only<Silu, kSilu>});
  r.add({"aten::silu_", 1, {}, floating_only_<Silu, kSilu>});
  r.add({"aten::gelu", 2, {IValue::string("none")}, gelu});
  r.add({"aten::gelu_", 2, {IValue::string("none")}, gelu_});
  r.add({"aten::hardtanh", 3, {IValue(-1.0), IValue(1.0)}, hardtanh});
  r.add({"aten::hardtanh_", 3, {IValue(-1.0), IValue(1.0)}, hardtanh_});
  r.add({"aten::neg", 1, {}, neg});
}

}  // namespace symbolite::ops
