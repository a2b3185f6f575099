// out[i] = in[i] * scale + shift over contiguous float32, a multiply then an add (two
// roundings, as PyTorch's vectorized batch norm computes it, never a fused multiply-add): the
// inner loop of batch norm in eval, in 16 AVX-512 lanes where the CPU has them (the x86-64
// baseline build gives the plain loop 4).
#pragma once

#include <cstdint>

namespace symbolite::ops {

void scale_shift_f32(const float* in, float* out, std::int64_t n, float scale, float shift);

}  // namespace symbolite::ops
