// The running maximum of max pooling, one tap at a time over a row of outputs:
// out[i] = (in[i] > out[i] || isnan(in[i])) ? in[i] : out[i], PyTorch's select (NaN wins).
// 16 lanes of AVX-512 where the CPU has them: the x86-64 baseline build gives the loop 4.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace symbolite::ops {

void running_max_f32(const float* in, float* out, std::int64_t n);

// The lanes where v replaces the running maximum m, PyTorch's select in AVX-512: for the
// kernels built for it (running_max.cpp), which alone call it. (max_pool_plane.cpp selects
// with VMAXPS and one compare, the same lanes.)
__attribute__((target("avx512f"))) inline __mmask16 max_takes16(__m512 v, __m512 m) {
  return _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
}

}  // namespace symbolite::ops
