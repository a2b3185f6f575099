// Vectorized float32 math over contiguous arrays, using SLEEF (Debian's libsleef, the
// library PyTorch's own CPU kernels vectorize with) with its 1.0-ULP functions, so results
// agree with PyTorch's vectorized kernels to rounding: 16 lanes of AVX-512 or 8 of AVX2
// where the CPU has them (vector_math_isa.h), else 4 of SSE2, the x86-64 baseline.
// Remainders are computed with the same functions on a padded lane.
#pragma once

#include <cstdint>

namespace symbolite::ops::vec {

void exp_f32(const float* in, float* out, std::int64_t n);
void sigmoid_f32(const float* in, float* out, std::int64_t n);  // 1 / (1 + exp(-x))
void silu_f32(const float* in, float* out, std::int64_t n);     // x / (1 + exp(-x))
void tanh_f32(const float* in, float* out, std::int64_t n);
// x * min(max(x + 3, 0), 6) / 6, as PyTorch's vectorized kernel computes it (no SLEEF).
void hardswish_f32(const float* in, float* out, std::int64_t n);

}  // namespace symbolite::ops::vec
