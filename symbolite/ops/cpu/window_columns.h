// 16 consecutive columns of a row in one AVX-512 register for the pooling plane kernels
// (max_pool_plane.cpp, avg_pool_plane.cpp), with `fill` where a column falls in the padding
// (outside [0, w): masked lanes are not read).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace symbolite::ops {

// The lanes of the 16 columns from `first` that fall inside [0, w), in scalar arithmetic (a
// vector of column numbers and two compares cost the pools a third of their first pass).
inline __mmask16 lanes_inside(std::int64_t first, std::int64_t w) {
  const std::int64_t from = std::clamp<std::int64_t>(-first, 0, 16);
  const std::int64_t to = std::clamp<std::int64_t>(w - first, 0, 16);
  if (from >= to) return 0;
  return static_cast<__mmask16>(((1u << to) - 1) & ~((1u << from) - 1));
}

// Input columns [first, first + 16) of `row`, `fill` outside [0, w).
__attribute__((target("avx512f"))) inline __m512 window_columns(const float* row,
                                                                std::int64_t first, std::int64_t w,
                                                                __m512 fill) {
  if (first >= 0 && first + 16 <= w) return _mm512_loadu_ps(row + first);  // inside
  return _mm512_mask_loadu_ps(fill, lanes_inside(first, w), row + first);
}

// Whether every tap of the 16 output columns from x reads inside [0, w): the columns
// x * sw - pw + j for j < kw, each 16 * sw wide.
inline bool window_taps_inside(std::int64_t x, std::int64_t sw, std::int64_t pw, std::int64_t kw,
                               std::int64_t w) {
  return x * sw - pw >= 0 && x * sw - pw + kw - 1 + 16 * sw <= w;
}

}  // namespace symbolite::ops
