// Float32 max pooling of one plane in two passes, on CPUs with AVX-512 or AVX2: each input row's
// maxima over the window's columns first (an input row serves several output rows: a 3x3
// window at stride 2 reads each row for two), then each output row the maximum of its
// window's rows. Tap by tap over rows, with a call per tap (pooling_ops.cpp's general path),
// SqueezeNet's three pools took a fifth of its time.
//
// The same bits as the general path: a value replaces the running maximum when it is greater
// or NaN (PyTorch's select), taps in the window's row-major order, so of equal values (0.0
// and -0.0) the first stays and of several NaNs the last wins — by rows then columns, as in
// one pass.
#pragma once

#include <cstdint>
#include <vector>

#include "symbolite/ops/cpu/pool_plane.h"

namespace symbolite::ops {

// Whether max_pool_plane_f32 takes this geometry here: column strides 1 or 2, and a CPU
// with AVX-512 or AVX2.
bool max_pool_plane_takes(const PoolPlane& p);

// out (oh x ow) = the max pooling of in (h x w); `scratch` is the calling thread's, grown as
// needed.
void max_pool_plane_f32(const float* in, float* out, const PoolPlane& p,
                        std::vector<float>& scratch);

}  // namespace symbolite::ops
