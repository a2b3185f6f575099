// Vectorized float32 math over contiguous arrays, using SLEEF (Debian's libsleef, the
// library PyTorch's own CPU kernels vectorize with): 4 lanes of SSE2, the x86-64 baseline,
// with SLEEF's 1.0-ULP functions, so results agree with PyTorch's vectorized kernels to
// rounding. Remainders are computed with the same functions on a padded lane.
#pragma once

#include <cstdint>

namespace symbolite::ops::vec {

void exp_f32(const float* in, float* out, std::int64_t n);
void sigmoid_f32(const float* in, float* out, std::int64_t n);  // 1 / (1 + exp(-x))
void silu_f32(const float* in, float* out, std::int64_t n);     // x / (1 + exp(-x))
void tanh_f32(const float* in, float* out, std::int64_t n);

}  // namespace symbolite::ops::vec
