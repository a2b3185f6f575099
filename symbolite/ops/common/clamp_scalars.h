// Clamping a tensor between Scalar bounds, as PyTorch 1.13's clamp(self, Scalar? min,
// Scalar? max): aten::clamp / clamp_min / clamp_max, and hardtanh (and relu6), which PyTorch
// runs as clamp_out once its integer limits are int64s.
#pragma once

#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

// A float bound on an integer tensor gives float32 (type promotion with the scalars); each
// bound converts as Scalar::to<T> (an overflow is an error); NaN in x stays NaN; with
// min > max every element is max (min is applied first); with both bounds given and either
// NaN, every element is NaN (PyTorch fills the result so). At least one bound.
tensor::Tensor clamp_scalars(const tensor::Tensor& x, const IValue& lo, const IValue& hi);

}  // namespace symbolite::ops
