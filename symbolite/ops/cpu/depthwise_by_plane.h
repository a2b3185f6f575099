// Depthwise convolution one channel plane at a time, each plane a long 1-d vector loop over
// shifted rows: no transposes, so best for large planes at stride 1 (depthwise_conv.h chooses).
#pragma once

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/registry/epilogue_kernels.h"

namespace symbolite::ops::nn {

// As depthwise_conv2d (depthwise_conv.h), with the same bits.
void depthwise_conv2d_by_plane(const float* in, const float* weight, const float* bias, float* out,
                               const ConvGeometry& g, const Epilogue* fused);

}  // namespace symbolite::ops::nn
