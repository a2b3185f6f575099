// Depthwise convolution (groups == input channels, one input channel per group, any channel
// multiplier), float32: the 3x3 and 5x5 convolutions of MobileNet-style models.
#pragma once

#include <cstdint>

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/registry/epilogue_kernels.h"

namespace symbolite::ops::nn {

// out (N, O, OH, OW) = conv(in (N, C, H, W), weight (O, 1, KH, KW)) + bias (O, or null),
// then `fused` (a folded batch norm's scale and shift, an activation: operator fusion) on
// each output plane as soon as it is written. Writes every output element.
void depthwise_conv2d(const float* in, const float* weight, const float* bias, float* out,
                      const ConvGeometry& g, const Epilogue* fused = nullptr);

// `fused` on the output plane of channel `channel` (n elements); nothing without it.
void finish_plane(const Epilogue* fused, float* plane, std::int64_t n, std::int64_t channel);

// The output plane of channel `channel` (rows x cols) from `wide`, where it was computed with
// rows `pitch` floats apart, and `fused` on it in the same pass.
void finish_plane_from(const Epilogue* fused, const float* wide, std::int64_t pitch, float* plane,
                       std::int64_t rows, std::int64_t cols, std::int64_t channel);

}  // namespace symbolite::ops::nn
