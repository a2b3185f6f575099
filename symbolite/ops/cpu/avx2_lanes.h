// Lane masks for the AVX2 builds of the kernels (gemv.cpp, max_pool_plane.cpp), which have no
// AVX-512 mask registers: a vector's first lanes, for _mm256_maskload_ps / _mm256_maskstore_ps.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace symbolite::ops::avx2 {

// The first `count` (0-8) lanes set.
__attribute__((target("avx2,fma"))) inline __m256i first_lanes(std::int64_t count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

}  // namespace symbolite::ops::avx2
