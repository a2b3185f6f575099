// Float32 convolutions over more than 128 inputs per output (CG * KH * KW; anything but a 1x1
// stride-1 unpadded kernel, which is one GEMM as it stands unless over a short image of no
// multiple of 16 pixels, and depthwise ones) on oneDNN's direct-convolution primitives:
// ResNet's, VGG's and DenseNet's 3x3s, grouped ones of RegNet and ResNeXt with 16 or more
// channels a group, 7x7 stems, strided and dilated ones. The primitives read weights in their own
// blocked layout; reordering them costs a copy, so it is made once per convolution and kept,
// which is only sound for weights that cannot change: read-only bytes of a model file
// (a tensor::Storage view). Other convolutions keep im2col + GEMM (conv_ops.cpp). Images
// move between PyTorch's NCHW and the primitives' NHWC by float_transpose.h, the output in
// bands of rows small enough to be transposed and finished (`done`) while in L2.
//
// Measured against im2col + oneDNN's SGEMM (bench/conv_bench.cpp, docs/PERFORMANCE.md): 1.1-1.8x
// faster on one thread on resnet18's 3x3s, up to 2.3x on two, input and output reorders
// included; grouped ones up to 3x.
#pragma once

#include <cstdint>

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/support/bytes.h"

namespace symbolite::ops::nn {

// out (N, O, OH, OW) = conv(in (N, C, H, W), weight (O, C, KH, KW)), no bias, calling `done`
// for every block of the output; returns true. Returns false, having written nothing,
// when it does not take the convolution (onednn_conv2d_shape), or oneDNN has no primitive
// for it. `weight_bytes` are the weight's read-only bytes (the reordered copy is
// kept while their owner lives).
bool onednn_conv2d(const float* in, const Bytes& weight_bytes, float* out, const ConvGeometry& g,
                   const ChannelsDone& done);

// Whether onednn_conv2d would take a convolution of this shape (the shape test only).
bool onednn_conv2d_shape(const ConvGeometry& g);

// Plans kept now — a primitive and reordered weights per convolution shape seen, dropped when
// the weights' file is unmapped: for tests.
std::size_t onednn_conv2d_plans();

}  // namespace symbolite::ops::nn
