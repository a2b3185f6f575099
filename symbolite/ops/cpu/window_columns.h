// 16 output columns' taps of a pooling window in one AVX-512 register, for the plane kernels
// (max_pool_plane.cpp, avg_pool_plane.cpp): the input columns a tap reads for 16 consecutive
// output columns, at column stride 1 or 2, with `fill` where a column falls in the padding
// (outside [0, w): masked lanes are not read).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace symbolite::ops {

// Input columns [first, first + 16) of `row`, `fill` outside [0, w).
__attribute__((target("avx512f"))) inline __m512 window_columns(const float* row,
                                                                std::int64_t first, std::int64_t w,
                                                                __m512 fill) {
  if (first >= 0 && first + 16 <= w) return _mm512_loadu_ps(row + first);  // inside
  const __m512i at =
      _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(first)),
                       _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  const __mmask16 inside =
      _mm512_cmp_epi32_mask(at, _mm512_setzero_si512(), _MM_CMPINT_NLT) &
      _mm512_cmp_epi32_mask(at, _mm512_set1_epi32(static_cast<int>(w)), _MM_CMPINT_LT);
  return _mm512_mask_loadu_ps(fill, inside, row + first);
}

// The tap at input column `first` of 16 consecutive output columns at column stride `sw`
// (1 or 2): columns first, first + sw, ..., first + 15 * sw.
__attribute__((target("avx512f"))) inline __m512 window_tap(const float* row, std::int64_t first,
                                                            std::int64_t sw, std::int64_t w,
                                                            __m512 fill) {
  if (sw == 1) return window_columns(row, first, w, fill);
  const __m512i even_lanes =
      _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  return _mm512_permutex2var_ps(window_columns(row, first, w, fill), even_lanes,
                                window_columns(row, first + 16, w, fill));
}

// Whether every tap of the 16 output columns from x reads inside [0, w): window_tap's first
// columns x * sw - pw + j for j < kw, each 16 * sw wide.
inline bool window_taps_inside(std::int64_t x, std::int64_t sw, std::int64_t pw, std::int64_t kw,
                               std::int64_t w) {
  return x * sw - pw >= 0 && x * sw - pw + kw - 1 + 16 * sw <= w;
}

// window_tap where window_taps_inside holds, in plain loads (a branch and masks less a tap:
// SqueezeNet's first pool spent a third of its first pass on them), at column stride SW.
template <int SW>
__attribute__((target("avx512f"))) inline __m512 inside_tap(const float* row, std::int64_t first) {
  static_assert(SW == 1 || SW == 2);
  if constexpr (SW == 1) {
    return _mm512_loadu_ps(row + first);
  } else {
    const __m512i even_lanes =
        _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    return _mm512_permutex2var_ps(_mm512_loadu_ps(row + first), even_lanes,
                                  _mm512_loadu_ps(row + first + 16));
  }
}

}  // namespace symbolite::ops
