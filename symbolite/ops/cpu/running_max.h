// The running maximum of max pooling, one tap at a time over a row of outputs:
// out[i] = (in[i] > out[i] || isnan(in[i])) ? in[i] : out[i], PyTorch's select (NaN wins).
// 16 lanes of AVX-512 where the CPU has them: the x86-64 baseline build gives the loop 4.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace symbolite::ops {

void running_max_f32(const float* in, float* out, std::int64_t n);

// The running maximum m with v taken where v > m or v is NaN, PyTorch's select in AVX-512:
// for the kernels built for it (running_max.cpp, max_pool_plane.cpp), which alone call it.
// VMAXPS(v, m) is `v > m ? v : m` (its second operand for a NaN or equal zeros), so only a
// NaN v needs a compare: one a tap on the port the stride-2 permutes use, where `v > m ||
// isnan(v)` as two compares took two (SqueezeNet's first pool 1.07x).
__attribute__((target("avx512f"))) inline __m512 select_max16(__m512 m, __m512 v) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q),
                              _mm512_maskz_max_ps(0xffff, v, m), v);
}

}  // namespace symbolite::ops
