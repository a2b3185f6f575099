// Depthwise convolution one channel plane at a time, a vector of output pixels along a row per
// tap: strides 1 and 2 without dilation, any kernel and padding. Best for all but the smallest
// planes (depthwise_conv.h chooses).
#pragma once

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/registry/epilogue_kernels.h"

namespace symbolite::ops::nn {

// Whether depthwise_conv2d_direct takes this geometry: equal strides of 1 or 2, no dilation.
bool depthwise_direct_shape(const ConvGeometry& g);

// As depthwise_conv2d (depthwise_conv.h), with the same bits; `g` as depthwise_direct_shape
// takes.
void depthwise_conv2d_direct(const float* in, const float* weight, const float* bias, float* out,
                             const ConvGeometry& g, const Epilogue* fused);

}  // namespace symbolite::ops::nn
