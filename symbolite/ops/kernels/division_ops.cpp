// Division with rounding on tensors — what Python's `//` and `%` on tensors compile to:
// floor_divide, remainder (the divisor's sign), fmod (the dividend's sign) and div with
// rounding_mode "trunc" / "floor", each with PyTorch 1.13's promotion, dtypes and messages.
//
// Integer kernels raise PyTorch's RuntimeError "ZeroDivisionError" for a zero divisor (PyTorch
// checks inside its loop, so any zero in a divisor that is used fails the call); floats give
// IEEE results. INT_MIN by -1 wraps here where PyTorch traps (SIGFPE).
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

template <typename T>
constexpr bool is_negative(T v) {
  if constexpr (std::is_signed_v<T>) {
    return v < 0;
  } else {
    (void)v;
    return false;
  }
}

// Integer a / b truncated; b == -1 negates (wrapping) since INT_MIN / -1 traps in C++.
template <typename T>
T int_div_trunc(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (b == -1) return static_cast<T>(U{0} - static_cast<U>(a));
  }
  return static_cast<T>(a / b);
}

// Integer a % b with the dividend's sign (C++'s); b == -1 gives 0 (INT_MIN % -1 traps).
template <typename T>
T int_mod_trunc(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return T{0};
  }
  return static_cast<T>(a % b);
}

struct FloorDivide {
  static constexpr const char* kKernel = "div_floor_cpu";
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      // c10's div_floor_floating: exact for a multiple of b, and -0.0 where Python has it.
      if (b == 0) return a / b;
      T mod = std::fmod(a, b);
      T div = (a - mod) / b;
      if (mod != 0 && (b < 0) != (mod < 0)) div -= T(1);
      if (div == 0) return std::copysign(T(0), a / b);
      T floordiv = std::floor(div);
      if (div - floordiv > T(0.5)) floordiv += T(1);
      return floordiv;
    } else {
      T quot = int_div_trunc(a, b);
      if (is_negative(a) != is_negative(b) && int_mod_trunc(a, b) != 0) --quot;
      return quot;
    }
  }
};

struct TruncDivide {
  static constexpr const char* kKernel = "div_trunc_cpu";
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::trunc(a / b);
    } else {
      return int_div_trunc(a, b);
    }
  }
};

// Python's %: fmod corrected towards the divisor's sign (so -0.0 % 2 stays -0.0).
struct Remainder {
  static constexpr const char* kKernel = "remainder_cpu";
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      T mod = std::fmod(a, b);
      if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
      return mod;
    } else {
      T r = int_mod_trunc(a, b);
      if (r != 0 && is_negative(r) != is_negative(b)) r = static_cast<T>(r + b);
      return r;
    }
  }
};

struct Fmod {
  static constexpr const char* kKernel = "fmod_cpu";
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else {
      return int_mod_trunc(a, b);
    }
  }
};

// op(a, b) elementwise in `common` (bool fails as PyTorch's dispatch does).
template <typename Op>
Tensor divide(const Tensor& a0, const Tensor& b0, DType common) {
  std::vector<std::int64_t> shape = tensor::broadcast_shapes(a0.sizes(), b0.sizes());
  return dispatch_numeric(common, Op::kKernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      not_implemented(Op::kKernel, common);  // dispatch_numeric refused it already
    } else {
      Tensor b = to_dtype(b0, common);
      if constexpr (std::is_integral_v<T>) {
        std::int64_t out_numel = 1;
        for (std::int64_t n : shape) out_numel *= n;
        const T* p = b.template data<T>();
        for (std::int64_t i = 0; out_numel != 0 && i < b.numel(); ++i) {
          if (p[i] == T{0}) fail("ZeroDivisionError");
        }
      }
      return binary_kernel<T>(a0, b, Op{});
    }
  });
}

template <typename Op>
Tensor divide_tensors(const IValue& self, const IValue& other) {
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  return divide<Op>(a, b, ResultType().tensor(a).tensor(b).result());
}

// A Scalar operand is a wrapped number: it promotes only across categories.
template <typename Op>
Tensor divide_by_scalar(const IValue& self, const IValue& other) {
  const Tensor& a = self.to_tensor();
  DType common = ResultType().tensor(a).scalar(other).result();
  return divide<Op>(a, scalar_tensor(other, common), common);
}

template <typename Op>
void tensor_tensor(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(divide_tensors<Op>(self, other));
}

template <typename Op>
void tensor_scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(divide_by_scalar<Op>(self, other));
}

// remainder.Scalar_Tensor(Scalar self, Tensor other): the number is the dividend.
void remainder_scalar_tensor(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& b = other.to_tensor();
  DType common = ResultType().scalar(self).tensor(b).result();
  s.emplace_back(divide<Remainder>(scalar_tensor(self, common), b, common));
}

// div.Tensor_mode / div.Scalar_mode: rounding_mode None is true division (div.Tensor).
template <bool kScalar>
Tensor divide_rounded(const IValue& self, const IValue& other, const IValue& mode) {
  if (mode.is_none()) {
    return run_op(kScalar ? "aten::div.Scalar" : "aten::div.Tensor", {self, other}).to_tensor();
  }
  const std::string& m = mode.to_string();
  if (m == "trunc") {
    return kScalar ? divide_by_scalar<TruncDivide>(self, other)
                   : divide_tensors<TruncDivide>(self, other);
  }
  if (m == "floor") {
    return kScalar ? divide_by_scalar<FloorDivide>(self, other)
                   : divide_tensors<FloorDivide>(self, other);
  }
  fail(fmt::format(
      "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", m));
}

template <bool kScalar>
void div_mode(Stack& s) {
  IValue mode = pop(s), other = pop(s), self = pop(s);
  s.emplace_back(divide_rounded<kScalar>(self, other, mode));
}

// div_.Tensor_mode / div_.Scalar_mode: the result written into self (cast to its dtype).
template <bool kScalar>
void div_mode_in_place(Stack& s) {
  IValue mode = pop(s), other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  push_in_place(s, self, divide_rounded<kScalar>(self, other, mode));
}

}  // namespace

void register_division_ops(OperatorRegistry& r) {
  IValue none;
  r.add({"aten::floor_divide", 2, {}, tensor_tensor<FloorDivide>});
  r.add({"aten::floor_divide.Scalar", 2, {}, tensor_scalar<FloorDivide>});
  r.add({"aten::remainder.Tensor", 2, {}, tensor_tensor<Remainder>});
  r.add({"aten::remainder.Scalar", 2, {}, tensor_scalar<Remainder>});
  r.add({"aten::remainder.Scalar_Tensor", 2, {}, remainder_scalar_tensor});
  r.add({"aten::fmod.Tensor", 2, {}, tensor_tensor<Fmod>});
  r.add({"aten::fmod.Scalar", 2, {}, tensor_scalar<Fmod>});
  r.add({"aten::div.Tensor_mode", 3, {}, div_mode<false>});
  r.add({"aten::div.Scalar_mode", 3, {}, div_mode<true>});
  r.add({"aten::div_.Tensor_mode", 3, {}, div_mode_in_place<false>});
  r.add({"aten::div_.Scalar_mode", 3, {}, div_mode_in_place<true>});
}

}  // namespace symbolite::ops
