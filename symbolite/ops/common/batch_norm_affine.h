// Batch norm in eval as a per-channel affine map, computed in one place for the batch_norm
// kernel and for folding a batch norm into a convolution at load
// (mobile/batch_norm_folding.h): folded results are the same bits only because both compute
// the scale and shift exactly alike.
#pragma once

#include <cstdint>
#include <vector>

#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

// The n elements of an optional per-channel parameter (float32 or float64, any strides) as
// double, or n times `fallback` for none.
std::vector<double> per_channel(const tensor::Tensor* t, std::int64_t n, double fallback);

// y = x * scale[c] + shift[c] for y = (x - mean) / sqrt(var + eps) * weight + bias, in double
// (the kernel rounds both to its dtype once): scale = weight / sqrt(var + eps),
// shift = bias - mean * scale.
struct ChannelAffine {
  std::vector<double> scale;
  std::vector<double> shift;
};
ChannelAffine batch_norm_affine(const std::vector<double>& weight, const std::vector<double>& bias,
                                const std::vector<double>& mean, const std::vector<double>& var,
                                double eps);

}  // namespace symbolite::ops
