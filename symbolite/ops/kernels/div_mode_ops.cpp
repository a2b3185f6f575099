// div with a rounding mode: div.Tensor_mode and div.Scalar_mode (and in place), as PyTorch
// 1.13 computes them. Besides models that call torch.div(..., rounding_mode=...), PyTorch's
// operator upgraders need "trunc": files older than operator version 4 divide integers with
// truncation (mobile/operator_upgraders.h).
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

enum class Rounding { kTrunc, kFloor };

// The most negative integer divided by -1 overflows: a hardware trap in C++; wrap instead.
template <typename T>
T int_quotient(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(U{0} - static_cast<U>(a));
    }
  }
  return static_cast<T>(a / b);
}

// Python's floor division of integers.
template <typename T>
T int_floor_quotient(T a, T b) {
  T q = int_quotient(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (b != -1 && (a % b != 0) && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
  }
  return q;
}

// PyTorch's div_floor_floating: the floor of the exact quotient, rounded as Python does.
template <typename T>
T float_floor_quotient(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= T{1};
  if (div == 0) return std::copysign(T{0}, a / b);
  T floor = std::floor(div);
  if (div - floor > T{0.5}) floor += T{1};
  return floor;
}

Tensor div_rounded(const Tensor& a, const Tensor& b, DType common, Rounding mode) {
  const char* kernel = mode == Rounding::kTrunc ? "div_trunc_cpu" : "div_floor_cpu";
  if (common == DType::kBool) not_implemented(kernel, common);
  return dispatch_numeric(common, kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      if (mode == Rounding::kTrunc) {
        return binary_kernel<T>(a, b, [](T x, T y) { return std::trunc(x / y); });
      }
      return binary_kernel<T>(a, b, [](T x, T y) { return float_floor_quotient(x, y); });
    } else {
      // PyTorch checks every divisor in the loop; its message is just this.
      if (mode == Rounding::kTrunc) {
        return binary_kernel<T>(a, b, [](T x, T y) {
          if (y == 0) fail("ZeroDivisionError");
          return int_quotient(x, y);
        });
      }
      return binary_kernel<T>(a, b, [](T x, T y) {
        if (y == 0) fail("ZeroDivisionError");
        return int_floor_quotient(x, y);
      });
    }
  });
}

// None divides truly (div.Tensor / div.Scalar); anything but "trunc" or "floor" is refused
// with PyTorch's message.
std::optional<Rounding> rounding(const IValue& mode) {
  if (mode.is_none()) return std::nullopt;
  const std::string& name = mode.to_string();
  if (name == "trunc") return Rounding::kTrunc;
  if (name == "floor") return Rounding::kFloor;
  fail(fmt::format(
      "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", name));
}

IValue div_mode(const IValue& self, const IValue& other, const IValue& mode, bool scalar) {
  std::optional<Rounding> r = rounding(mode);
  if (!r) return run_op(scalar ? "aten::div.Scalar" : "aten::div.Tensor", {self, other});
  const Tensor& a = self.to_tensor();
  if (scalar) {
    DType common = ResultType().tensor(a).scalar(other).result();
    return IValue(div_rounded(a, scalar_tensor(other, common), common, *r));
  }
  const Tensor& b = other.to_tensor();
  return IValue(div_rounded(a, b, ResultType().tensor(a).tensor(b).result(), *r));
}

void div_tensor_mode(Stack& s) {
  IValue mode = pop(s), other = pop(s), self = pop(s);
  s.push_back(div_mode(self, other, mode, false));
}
void div_scalar_mode(Stack& s) {
  IValue mode = pop(s), other = pop(s), self = pop(s);
  s.push_back(div_mode(self, other, mode, true));
}
void div__tensor_mode(Stack& s) {
  IValue mode = pop(s), other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  push_in_place(s, self, div_mode(self, other, mode, false).to_tensor());
}
void div__scalar_mode(Stack& s) {
  IValue mode = pop(s), other = pop(s), self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  push_in_place(s, self, div_mode(self, other, mode, true).to_tensor());
}

}  // namespace

void register_div_mode_ops(OperatorRegistry& r) {
  r.add({"aten::div.Tensor_mode", 3, {}, div_tensor_mode});
  r.add({"aten::div.Scalar_mode", 3, {}, div_scalar_mode});
  r.add({"aten::div_.Tensor_mode", 3, {}, div__tensor_mode});
  r.add({"aten::div_.Scalar_mode", 3, {}, div__scalar_mode});
}

}  // namespace symbolite::ops
