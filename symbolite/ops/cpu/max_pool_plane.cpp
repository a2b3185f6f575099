#include "symbolite/ops/cpu/max_pool_plane.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/ops/cpu/float_lanes.h"

namespace symbolite::ops {
namespace {

constexpr std::int64_t kLanes = 16;

std::int64_t round_up(std::int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

// m with v taken where v > m or v is NaN: PyTorch's `val > max || isnan(val)`.
__attribute__((target("avx512f"))) inline __m512 select_max(__m512 m, __m512 v) {
  const __mmask16 take =
      _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_mask_blend_ps(take, m, v);
}

// Where the passes keep their rows, in floats from one cache-aligned block: the padded input
// row (-inf in the padding, as a tap there never wins), at stride 2 its even and odd columns,
// and every input row's column maxima, `padded_width` apart. Every cell a load reaches is
// written first.
struct Layout {
  std::int64_t padded_width;  // ow rounded up to whole vectors
  std::int64_t half;          // floats of the even and of the odd columns
  std::int64_t row;           // floats of the padded row
  Layout(const MaxPoolPlane& p)
      : padded_width(round_up(p.ow)),
        half(round_up(padded_width + p.kw / 2 + kLanes)),
        row(std::max(round_up((p.ow - 1) * p.sw + p.kw) + kLanes, 2 * half + 2 * kLanes)) {}
  std::int64_t size(const MaxPoolPlane& p) const { return row + 2 * half + p.h * padded_width; }
};

__attribute__((target("avx512f"))) void pool_avx512(const float* in, float* out,
                                                    const MaxPoolPlane& p, float* base) {
  const Layout at(p);
  float* row = base;
  float* even = row + at.row;
  float* odd = even + at.half;
  float* maxima = odd + at.half;
  const float minus_inf = -std::numeric_limits<float>::infinity();
  const __m512i even_lanes =
      _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd_lanes =
      _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  // Pass 1: each input row's maxima over the window's columns, for every output column.
  const std::int64_t copied = std::min(p.w, at.row - p.pw);  // input columns the row holds
  for (std::int64_t y = 0; y < p.h; ++y) {
    std::fill_n(row, p.pw, minus_inf);
    std::memcpy(row + p.pw, in + y * p.w, static_cast<std::size_t>(copied) * sizeof(float));
    std::fill(row + p.pw + copied, row + at.row, minus_inf);
    const float* taps = row;
    if (p.sw == 2) {
      for (std::int64_t k = 0; k < at.half; k += kLanes) {
        const __m512 a = _mm512_loadu_ps(row + 2 * k);
        const __m512 b = _mm512_loadu_ps(row + 2 * k + kLanes);
        _mm512_storeu_ps(even + k, _mm512_permutex2var_ps(a, even_lanes, b));
        _mm512_storeu_ps(odd + k, _mm512_permutex2var_ps(a, odd_lanes, b));
      }
    }
    float* dst = maxima + y * at.padded_width;
    for (std::int64_t x = 0; x < at.padded_width; x += kLanes) {
      __m512 m = _mm512_set1_ps(minus_inf);
      for (std::int64_t j = 0; j < p.kw; ++j) {
        // Tap j of output column x reads padded column x * sw + j.
        const float* src = p.sw == 1 ? taps + x + j : (j % 2 == 0 ? even : odd) + x + j / 2;
        m = select_max(m, _mm512_loadu_ps(src));
      }
      _mm512_storeu_ps(dst + x, m);
    }
  }
  // Pass 2: each output row the maximum of its window's rows' maxima.
  for (std::int64_t oy = 0; oy < p.oh; ++oy) {
    float* dst = out + oy * p.ow;
    for (std::int64_t x = 0; x < p.ow; x += kLanes) {
      __m512 m = _mm512_set1_ps(minus_inf);
      for (std::int64_t i = 0; i < p.kh; ++i) {
        const std::int64_t y = oy * p.sh - p.ph + i;
        if (y < 0 || y >= p.h) continue;  // padding
        m = select_max(m, _mm512_loadu_ps(maxima + y * at.padded_width + x));
      }
      const std::int64_t n = std::min(kLanes, p.ow - x);
      _mm512_mask_storeu_ps(dst + x, static_cast<__mmask16>((1u << n) - 1), m);
    }
  }
}

}  // namespace

bool max_pool_plane_takes(const MaxPoolPlane& p) {
  return (p.sw == 1 || p.sw == 2) && p.oh > 0 && p.ow > 0 && cpu_has_avx512f();
}

void max_pool_plane_f32(const float* in, float* out, const MaxPoolPlane& p,
                        std::vector<float>& scratch) {
  const Layout at(p);
  pool_avx512(in, out, p, simd::line_aligned(scratch, at.size(p)));
}

}  // namespace symbolite::ops
