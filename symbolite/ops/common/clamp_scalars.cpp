#include "symbolite/ops/common/clamp_scalars.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {

using tensor::DType;
using tensor::Tensor;

Tensor clamp_scalars(const Tensor& x, const IValue& lo, const IValue& hi) {
  if (lo.is_none() && hi.is_none())
    fail("torch.clamp: At least one of 'min' or 'max' must not be None");
  if (x.dtype() == DType::kBool) not_implemented("clamp_scalar_cpu", x.dtype());
  const bool float_bound = (!lo.is_none() && lo.is(IValue::Kind::kDouble)) ||
                           (!hi.is_none() && hi.is(IValue::Kind::kDouble));
  const DType compute = !is_floating(x.dtype()) && float_bound ? DType::kFloat32 : x.dtype();
  const Tensor in = x.dtype() == compute ? x : to_dtype(x, compute);
  const bool has_lo = !lo.is_none(), has_hi = !hi.is_none();
  return dispatch_numeric(compute, "clamp_scalar_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      if (has_lo && has_hi && (std::isnan(lo.to_double()) || std::isnan(hi.to_double()))) {
        Tensor out = Tensor::uninitialized(in.sizes(), compute);
        std::fill_n(out.template mutable_data<T>(), out.numel(),
                    std::numeric_limits<T>::quiet_NaN());
        return out;
      }
    }
    // Each bound as PyTorch's Scalar::to<T>: c10's check (an int bound outside an integer
    // dtype fails, as does a float one outside float32), an int straight to a float.
    auto bound = [](const IValue& b) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        if (b.is(IValue::Kind::kInt)) return static_cast<T>(b.to_int());
      }
      return checked_value<T>(b);
    };
    const T li = has_lo ? bound(lo) : T{};
    const T hi_v = has_hi ? bound(hi) : T{};
    if constexpr (std::is_same_v<T, float>) {  // the same values in vectors
      constexpr float kInf = std::numeric_limits<float>::infinity();
      const float bottom = has_lo ? li : -kInf, top = has_hi ? hi_v : kInf;
      auto fast = map_contiguous_f32(in, [=](const float* src, float* dst, std::int64_t n) {
        vec::clamp_f32(src, dst, n, bottom, top);
      });
      if (fast) return std::move(*fast);
    }
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

}  // namespace symbolite::ops
