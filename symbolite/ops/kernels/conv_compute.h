// The compute half of a float32 2-d convolution, after conv2d's checks: for kernels that run a
// convolution as part of something larger (conv_max_pool.cpp).
#pragma once

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/registry/epilogue_kernels.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops::nn {

// out (N, O, OH, OW) = fused(conv(in, weight) + bias) for the checked convolution `g`: `in`
// contiguous NCHW, `weight` contiguous (O, C / groups, KH, KW) float32, `bias` O floats or
// null, `fused` or null. The compute path is the one conv2d picks for `g` (conv_ops.cpp).
void conv2d_f32(const float* in, const tensor::Tensor& weight, const float* bias,
                const Epilogue* fused, float* out, const ConvGeometry& g);

// Whether conv2d_f32 computes `g` by paths that give every output the same bits whichever
// rows of the output a call computes — one group, at most 128 inputs per output (a stem), not
// a 1x1 product: stem_conv.h or im2col + GEMM — so that a consumer may have a band of output
// rows computed at a time, as a convolution of its own over the input rows they read.
bool conv2d_f32_by_rows(const ConvGeometry& g);

}  // namespace symbolite::ops::nn
