// The activations another kernel can apply to its own output while it is in cache
// (mobile/operator_fusion.h: a convolution's or batch norm's epilogue). The standalone
// kernels (elementwise_ops.cpp), in place or not, compute with the same vector functions
// (ops/cpu/vector_math.h), so a fused result has the same bits as the operators one after the
// other.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "symbolite/ops/common/activation_kind.h"
#include "symbolite/ops/registry/ivalue.h"

namespace symbolite::ops {

// The activation of an operator a kernel can fuse, given its arguments after the tensor
// ("aten::relu_" and "aten::relu" -> kRelu; "aten::hardtanh_" or "aten::hardtanh" with 0 and
// 6, or "aten::relu6" -> kRelu6); nullopt for anything else. An out-of-place one returns a new tensor: the
// caller fuses it only over a value nothing else can see (operator_fusion.cpp).
std::optional<Activation> fusable_activation(std::string_view op_name,
                                             std::span<const IValue> arguments = {});

// relu as PyTorch's clamp_min keeps it: NaN and -0.0 pass through.
template <typename T>
T relu_value(T v) {
  return v < T(0) ? T(0) : v;
}
// min(max(x + 3, 0), 6) / 6.
template <typename T>
T hardsigmoid_value(T v) {
  return std::min(std::max(v + T(3), T(0)), T(6)) / T(6);
}

// p[0, n) = activation(p[0, n)), contiguous float32, in vectors (ops/cpu/vector_math.h),
// split across threads when called outside a parallel loop.
void apply_activation_f32(Activation activation, float* p, std::int64_t n);

}  // namespace symbolite::ops
