// The two 256-bit halves of an AVX-512 register added: the first step of the fixed-order lane
// reductions (gemv.cpp's dot products, contiguous_sum.cpp's double sums). The extracts are the
// zero-masked forms: GCC 12 reports the unmasked ones' undefined pass-through operand (and
// _mm512_reduce_add_pd's) under -Wmaybe-uninitialized.
#pragma once

#include <immintrin.h>

namespace symbolite::ops::avx512 {

// Every lane of 16: the mask of the zero-masked forms used for the same reason.
inline constexpr __mmask16 kAllLanes = 0xFFFF;

__attribute__((target("avx512f"))) inline __m256d halves(__m512d v) {
  return _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xF, v, 0),
                       _mm512_maskz_extractf64x4_pd(0xF, v, 1));
}

// (Floats extracted as doubles: AVX512F has no 256-bit float extract; AVX512DQ's is not needed.)
__attribute__((target("avx512f"))) inline __m256 halves(__m512 v) {
  const __m512d d = _mm512_castps_pd(v);
  return _mm256_add_ps(_mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, d, 0)),
                       _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, d, 1)));
}

}  // namespace symbolite::ops::avx512
