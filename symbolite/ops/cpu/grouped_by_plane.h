// Grouped convolution one output plane at a time, each plane a long 1-d vector loop summing
// shifted input planes, one per tap of each input channel of its group: no transposes and no
// im2col. For depthwise convolutions (one input channel a group) on large planes at stride 1
// (depthwise_conv.h chooses), and for groups of a few channels (RegNet's 8, ResNeXt's 4),
// where im2col builds a tiny GEMM per group.
#pragma once

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/registry/epilogue_kernels.h"

namespace symbolite::ops::nn {

// out (N, O, OH, OW) = conv(in (N, C, H, W), weight (O, C / groups, KH, KW), groups) + bias
// (O, or null), float32, then `fused` on each output plane as soon as it is written. Each
// output element is the bias plus its taps in weight order (input channel, row, column),
// added one by one with FMAs: the result does not depend on the thread count. Depthwise
// convolutions get the same bits as depthwise_conv2d (depthwise_conv.h).
void grouped_conv2d_by_plane(const float* in, const float* weight, const float* bias, float* out,
                             const ConvGeometry& g, const Epilogue* fused);

}  // namespace symbolite::ops::nn
