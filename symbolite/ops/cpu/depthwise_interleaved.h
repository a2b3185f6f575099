// Depthwise convolution by blocks of channels interleaved into vector lanes: each tap of each
// output pixel is one vector FMA, at any stride, dilation and plane size. Best for small
// planes and strides above 1 (depthwise_conv.h chooses).
#pragma once

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/registry/epilogue_kernels.h"

namespace symbolite::ops::nn {

// As depthwise_conv2d (depthwise_conv.h), with the same bits.
void depthwise_conv2d_interleaved(const float* in, const float* weight, const float* bias,
                                  float* out, const ConvGeometry& g, const Epilogue* fused);

}  // namespace symbolite::ops::nn
