// Copying every stride-th float of a row: what im2col does for a strided convolution (the
// 3x3 stride-2 stems of MobileNet, EfficientNet, MNASNet and ShuffleNet spend more time in
// it than in their GEMM when the copy goes element by element).
#pragma once

#include <cstdint>

namespace symbolite::ops {

// dst[i] = src[i * stride] for i in [0, n). Reads nothing past src[(n - 1) * stride].
void strided_copy_f32(const float* src, std::int64_t stride, float* dst, std::int64_t n);

}  // namespace symbolite::ops
