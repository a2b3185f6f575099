// out[i] = in[i] * scale + shift over contiguous float32: the inner loop of batch norm in eval.
// One fused multiply-add (one rounding) where the CPU has AVX2 + FMA, in 16 AVX-512 or 8 AVX2
// lanes; a multiply then an add (two roundings) on the x86-64 baseline, whose plain loop gets
// 4. That is PyTorch 1.13's vectorized batch norm on each: GCC contracts its x * alpha + beta
// into an FMA in its AVX2 kernels (Debian's PyTorch here; ATEN_CPU_CAPABILITY=default gives
// the two roundings). The same arithmetic as a convolution's fused batch norm
// (vec::epilogue_f32), on every CPU.
#pragma once

#include <cstdint>

namespace symbolite::ops {

void scale_shift_f32(const float* in, float* out, std::int64_t n, float scale, float shift);

}  // namespace symbolite::ops
