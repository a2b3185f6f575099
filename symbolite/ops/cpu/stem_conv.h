// Dense float32 convolutions over few inputs per output pixel (in channels x kernel taps up
// to 128): a network's stem, 3 colour channels under a 3x3 to 7x7 kernel at stride 1 or 2
// (MobileNets, EfficientNets, MNASNet, ShuffleNet, SqueezeNet). As im2col + GEMM they are a
// product with k = 27, whose packing costs as much as its multiply-adds; here each output row
// is computed directly from packed input rows, several output channels sharing each load.
#pragma once

#include "symbolite/ops/common/conv_geometry.h"

namespace symbolite::ops::nn {

// Whether stem_conv2d takes this geometry: one group, at most 128 inputs per output, equal
// strides of 1 or 2, no dilation.
bool stem_conv2d_shape(const ConvGeometry& g);

// out (N, O, OH, OW) = conv(in (N, C, H, W), weight (O, C, KH, KW)), no bias, for `g` as
// stem_conv2d_shape takes, calling `done` for every band of output rows it finishes (all
// channels). Each output is its taps summed in (channel, row, column) order: the same bits at
// any thread count.
void stem_conv2d(const float* in, const float* weight, float* out, const ConvGeometry& g,
                 const ChannelsDone& done);

}  // namespace symbolite::ops::nn
