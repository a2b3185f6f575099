// A 1x1 convolution's product over a short image (a 7x7 or 14x14 plane) with the output
// channels in the AVX-512 lanes. Vectorized over pixels, as a GEMM is, a 49-pixel row fills 49
// of the 64 lanes of four vectors; output channels come in multiples of 8 or 16 in the models
// that have such convolutions (MobileNet's, MnasNet's and EfficientNet's last stages), so every
// lane does work. Each tile is 7 pixels by 64 channels of accumulators (a 7x7 image is seven
// of them), the weights packed once per file into rows of 64 channels, and the tile's results
// transposed into the NCHW output a block of 64 channels at a time.
#pragma once

#include <cstdint>
#include <functional>

#include "symbolite/support/bytes.h"

namespace symbolite::ops {

// c (m x n, rows ldc apart) = A · b, where A (m x k, row-major) is `a`, read-only weight bytes
// of a model file (a 1x1 convolution's weight), and b (k x n, rows ldb apart) the activations.
// Every output is the sum of its k products in order from zero, whichever thread computes it.
// `done(first, count)` runs on the thread that wrote rows [first, first + count), right after
// (a convolution's epilogue, while they are in cache). Returns false, having written nothing,
// when it does not take the product: no AVX-512, rows longer than kChannelLanesMaxRows, a
// product too small to be worth packing weights for, channels that would fill their vectors'
// lanes worse than the pixels do, or rows over 64 pixels long with fewer than 64 inputs per
// output.
constexpr std::int64_t kChannelLanesMaxRows = 256;
bool pointwise_channel_lanes(const Bytes& a, const float* b, std::int64_t ldb, std::int64_t m,
                             std::int64_t n, std::int64_t k, float* c, std::int64_t ldc,
                             const std::function<void(std::int64_t, std::int64_t)>& done);

// Packed weights kept now (one per weight seen): for tests.
std::size_t pointwise_channel_lanes_plans();

}  // namespace symbolite::ops
