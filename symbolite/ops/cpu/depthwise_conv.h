// Depthwise convolution (groups == input channels, one input channel per group, any channel
// multiplier), float32: the 3x3 and 5x5 convolutions of MobileNet-style models.
#pragma once

#include "symbolite/ops/common/conv_geometry.h"

namespace symbolite::ops::nn {

// out (N, O, OH, OW) = conv(in (N, C, H, W), weight (O, 1, KH, KW)) + bias (O, or null).
// Writes every output element.
void depthwise_conv2d(const float* in, const float* weight, const float* bias, float* out,
                      const ConvGeometry& g);

}  // namespace symbolite::ops::nn
