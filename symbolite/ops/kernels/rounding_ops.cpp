// Rounding of tensors: aten::floor, ceil, trunc and round (halves to even; to a number of
// decimals too), and in place.
// Floating tensors round in their own dtype; integer tensors are already whole, so the result
// is an equal copy of the same dtype; bool is refused with PyTorch's text, as its kernels lack
// it. (The `math` module's floor/ceil/round of Python numbers: float_math_ops.cpp.)
#include <cmath>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;

template <typename T, typename F>
T rounded(T v, F f) {
  if constexpr (std::is_floating_point_v<T>) {
    return f(v);
  } else {
    return v;
  }
}

template <typename F>
Tensor round_with(const Tensor& x, const char* kernel, F f) {
  if (auto fast = map_contiguous_f32(x, [](const float* in, float* out, std::int64_t n) {
        vec::float_function_f32(F::kVector, in, out, n);
      })) {
    return std::move(*fast);
  }
  return dispatch_numeric(x.dtype(), kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(x, [&](T v) { return rounded(v, f); });
  });
}

struct Floor {
  static constexpr vec::FloatFunction kVector = vec::FloatFunction::kFloor;
  static constexpr const char* kKernel = "floor_vml_cpu";
  template <typename T>
  T operator()(T v) const {
    return std::floor(v);
  }
};
struct Ceil {
  static constexpr vec::FloatFunction kVector = vec::FloatFunction::kCeil;
  static constexpr const char* kKernel = "ceil_vml_cpu";
  template <typename T>
  T operator()(T v) const {
    return std::ceil(v);
  }
};
struct Trunc {
  static constexpr vec::FloatFunction kVector = vec::FloatFunction::kTrunc;
  static constexpr const char* kKernel = "trunc_vml_cpu";
  template <typename T>
  T operator()(T v) const {
    return std::trunc(v);
  }
};
// Halves to even, as PyTorch's std::nearbyint under the default rounding mode.
struct Round {
  static constexpr vec::FloatFunction kVector = vec::FloatFunction::kRound;
  static constexpr const char* kKernel = "round_vml_cpu";
  template <typename T>
  T operator()(T v) const {
    return std::nearbyint(v);
  }
};

template <typename R>
void out_of_place(Stack& s) {
  IValue self = pop(s);
  s.emplace_back(round_with(self.to_tensor(), R::kKernel, R{}));
}

template <typename R>
void in_place(Stack& s) {
  IValue self = pop(s);
  check_no_internal_overlap(self.to_tensor());
  push_in_place(s, self, round_with(self.to_tensor(), R::kKernel, R{}));
}

// round.decimals(self, *, decimals): to `decimals` places (negative: tens, hundreds, ...),
// halves to even, through the power of ten in the element type as PyTorch computes it.
void round_decimals(Stack& s) {
  const std::int64_t decimals = pop(s).to_int();
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(dispatch_numeric(x.dtype(), "round_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (!std::is_floating_point_v<T>) {
      not_implemented("round_cpu", x.dtype());
    } else {
      const bool negative = decimals < 0;
      const T ten_pow = static_cast<T>(std::pow(10.0, std::fabs(static_cast<double>(decimals))));
      return unary_same<T>(x, [=](T v) {
        return negative ? std::nearbyint(v / ten_pow) * ten_pow
                        : std::nearbyint(v * ten_pow) / ten_pow;
      });
    }
  }));
}

}  // namespace

void register_rounding_ops(OperatorRegistry& r) {
  r.add({"aten::floor", 1, {}, out_of_place<Floor>});
  r.add({"aten::ceil", 1, {}, out_of_place<Ceil>});
  r.add({"aten::trunc", 1, {}, out_of_place<Trunc>});
  r.add({"aten::round", 1, {}, out_of_place<Round>});
  r.add({"aten::floor_", 1, {}, in_place<Floor>});
  r.add({"aten::ceil_", 1, {}, in_place<Ceil>});
  r.add({"aten::trunc_", 1, {}, in_place<Trunc>});
  r.add({"aten::round_", 1, {}, in_place<Round>});
  r.add({"aten::round.decimals", 2, {}, round_decimals});
}

}  // namespace symbolite::ops
