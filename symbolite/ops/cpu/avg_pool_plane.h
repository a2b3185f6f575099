// Float32 average pooling of one plane on CPUs with AVX-512: 16 output columns at a time, four
// such vectors side by side, each lane adding its window's taps in PyTorch's order (rows, then
// columns, from +0), so the sums are its CPU kernel's to the bit. The plane is first copied
// with its padding as zeros, so every tap is a plain load; a padding tap adds +0, which changes no
// sum (one that starts at +0 never becomes -0). Tap by tap over rows of outputs (pooling_ops.cpp's
// general path), Inception v3's nine 3x3 pools took a ninth of its time on rows 35, 17 and 8 wide.
#pragma once

#include <cstdint>
#include <vector>

#include "symbolite/ops/cpu/pool_plane.h"

namespace symbolite::ops {

// Whether avg_pool_plane_f32 takes this geometry here: column strides 1 or 2, and a CPU with
// AVX-512.
bool avg_pool_plane_takes(const PoolPlane& p);

// out (oh x ow) = +0 + sum / divisor per output, the sum over the window's taps inside in
// (h x w); `divisors` holds each output's divisor (oh x ow; 1 where the window holds no
// input, whose output is +0). `scratch` is the calling thread's (the plane is copied into it
// with its padding as zeros), grown as needed.
void avg_pool_plane_f32(const float* in, float* out, const PoolPlane& p, const float* divisors,
                        std::vector<float>& scratch);

}  // namespace symbolite::ops
