#include "symbolite/ops/cpu/max_pool_plane.h"

#include <immintrin.h>

#include <algorithm>
#include <limits>

#include "symbolite/ops/cpu/avx2_lanes.h"
#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/ops/cpu/float_lanes.h"
#include "symbolite/ops/cpu/running_max.h"
#include "symbolite/ops/cpu/window_columns.h"

namespace symbolite::ops {
namespace {

// The permute index that takes the even columns of two vectors of 32 consecutive columns.
__attribute__((target("avx512f"))) inline __m512i even_columns() {
  return _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
}

// Pass 1 at column stride 2 for one input row, for windows 3 wide: 32 input columns a
// vector of outputs, loaded once (each pair also serves the vector before it) and split into
// even and odd columns (two permutes); tap 0 is the even columns, tap 1 the odd ones, tap 2
// the even ones one lane on (a lane shift into the next pair's). Taps one load each (six,
// most across two cache lines) held SqueezeNet's first pool to the load ports. Columns outside
// the row (the padding, past the last window) are -inf; taps in order, from tap 0, as the
// general loop takes them from -inf.
__attribute__((target("avx512f"))) void row_maxima_stride2_k3(const float* row, float* dst,
                                                              const PoolPlane& p,
                                                              std::int64_t padded_width) {
  const __m512i even = even_columns();
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  __m512 a = window_columns(row, -p.pw, p.w, minus_inf);
  __m512 b = window_columns(row, kPlaneLanes - p.pw, p.w, minus_inf);
  __m512 evens = _mm512_permutex2var_ps(a, even, b);
  __m512 odds = _mm512_permutex2var_ps(a, odd, b);
  for (std::int64_t x = 0; x < padded_width; x += kPlaneLanes) {
    const std::int64_t next = 2 * (x + kPlaneLanes) - p.pw;  // the next vector's columns
    a = window_columns(row, next, p.w, minus_inf);
    b = window_columns(row, next + kPlaneLanes, p.w, minus_inf);
    const __m512 next_evens = _mm512_permutex2var_ps(a, even, b);
    const __m512 shifted = _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(
        0xffff, _mm512_castps_si512(next_evens), _mm512_castps_si512(evens), 1));
    _mm512_storeu_ps(dst + x, select_max16(select_max16(evens, odds), shifted));
    evens = next_evens;
    odds = _mm512_permutex2var_ps(a, odd, b);
  }
}

// Pass 1 at column stride 2 for one input row, other window widths: the window's maximum at
// every input column (16 columns a vector, a load a tap), then the even ones kept for the
// output columns, one permute a vector of outputs where a stride-2 tap cost one each. Each
// column's maximum takes its taps in order from the first, as the general loop does from
// -inf; columns outside the row are -inf.
__attribute__((target("avx512f"))) void row_maxima_stride2(const float* row, float* dst,
                                                           const PoolPlane& p,
                                                           std::int64_t padded_width) {
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const __m512i even_lanes = even_columns();
  for (std::int64_t x = 0; x < padded_width; x += kPlaneLanes) {
    const std::int64_t first = 2 * x - p.pw;  // output column x's first tap
    // Windows from columns first .. first + 15, and first + 16 .. first + 31.
    __m512 lo = window_columns(row, first, p.w, minus_inf);
    __m512 hi = window_columns(row, first + kPlaneLanes, p.w, minus_inf);
    for (std::int64_t j = 1; j < p.kw; ++j) {
      lo = select_max16(lo, window_columns(row, first + j, p.w, minus_inf));
      hi = select_max16(hi, window_columns(row, first + kPlaneLanes + j, p.w, minus_inf));
    }
    _mm512_storeu_ps(dst + x, _mm512_permutex2var_ps(lo, even_lanes, hi));
  }
}

// `maxima` holds every input row's column maxima (pass 1), `padded_width` (ow in whole
// vectors) apart. SW is p.sw; K the window's height and width where it is K x K at compile
// time (3: the tap loops unrolled, 1.05x on SqueezeNet's first pool), else 0.
template <int SW, int K>
__attribute__((target("avx512f"))) void pool_avx512(const float* in, float* out, const PoolPlane& p,
                                                    float* maxima) {
  const std::int64_t kw = K > 0 ? K : p.kw;
  const std::int64_t kh = K > 0 ? K : p.kh;
  const std::int64_t padded_width = round_up_to_lanes(p.ow);
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  // Pass 1: each input row's maxima over the window's columns, for every output column: tap
  // j of output column x reads input column x * sw - pw + j.
  for (std::int64_t y = 0; y < p.h; ++y) {
    const float* row = in + y * p.w;
    float* dst = maxima + y * padded_width;
    if constexpr (SW == 2 && K == 3) {
      row_maxima_stride2_k3(row, dst, p, padded_width);
    } else if constexpr (SW == 2) {
      row_maxima_stride2(row, dst, p, padded_width);
    } else {
      for (std::int64_t x = 0; x < padded_width; x += kPlaneLanes) {
        __m512 m = minus_inf;
        const std::int64_t first = x - p.pw;
        if (window_taps_inside(x, 1, p.pw, kw, p.w)) {
          for (std::int64_t j = 0; j < kw; ++j)
            m = select_max16(m, _mm512_loadu_ps(row + first + j));
        } else {
          for (std::int64_t j = 0; j < kw; ++j) {
            m = select_max16(m, window_columns(row, first + j, p.w, minus_inf));
          }
        }
        _mm512_storeu_ps(dst + x, m);
      }
    }
  }
  // Pass 2: each output row the maximum of its window's rows' maxima.
  for (std::int64_t oy = 0; oy < p.oh; ++oy) {
    float* dst = out + oy * p.ow;
    for (std::int64_t x = 0; x < p.ow; x += kPlaneLanes) {
      __m512 m = minus_inf;
      for (std::int64_t i = 0; i < kh; ++i) {
        const std::int64_t y = oy * p.sh - p.ph + i;
        if (y < 0 || y >= p.h) continue;  // padding
        m = select_max16(m, _mm512_loadu_ps(maxima + y * padded_width + x));
      }
      const std::int64_t n = std::min(kPlaneLanes, p.ow - x);
      _mm512_mask_storeu_ps(dst + x, static_cast<__mmask16>((1u << n) - 1), m);
    }
  }
}

// The same two passes in 8 lanes of AVX2, for CPUs without AVX-512 (tap by tap over output
// rows, SqueezeNet's three pools were a quarter of its time on a Zen 3 EPYC). Each input row
// is first copied between -inf columns (the padding and past the last window), and at column
// stride 2 split into its even and odd columns, so that every tap of pass 1 is one unaligned
// load: tap j of output column x is padded column 2x + j, the (j % 2) phase's column
// x + j / 2. Taps in order from -inf, as the general loop takes them.

constexpr std::int64_t kLanes8 = 8;

__attribute__((target("avx2,fma"))) inline __m256 select_max8(__m256 m, __m256 v) {
  // VMAXPS(v, m) is `v > m ? v : m`; a NaN v replaces m too (PyTorch's select).
  return _mm256_blendv_ps(_mm256_max_ps(v, m), v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

__attribute__((target("avx2,fma"))) void pool_avx2(const float* in, float* out, const PoolPlane& p,
                                                   std::vector<float>& scratch) {
  const float minus_inf_value = -std::numeric_limits<float>::infinity();
  const __m256 minus_inf = _mm256_set1_ps(minus_inf_value);
  const std::int64_t width = (p.ow + kLanes8 - 1) / kLanes8 * kLanes8;  // pass 1's columns
  // Padded columns pass 1 reads (and the phase split's whole pairs of vectors), rounded up.
  const std::int64_t reach = std::max((width - 1) * p.sw + p.kw, p.pw + p.w);
  const std::int64_t padded = (reach + 2 * kLanes8 - 1) / (2 * kLanes8) * (2 * kLanes8);
  const std::int64_t half = padded / 2;
  float* maxima = simd::line_aligned(scratch, p.h * width + 2 * padded);
  float* row = maxima + p.h * width;
  float* evens = row + padded;
  float* odds = evens + half;
  std::fill_n(row, padded, minus_inf_value);  // the columns outside the input stay -inf
  const bool split = p.sw == 2;               // into even and odd columns
  for (std::int64_t y = 0; y < p.h; ++y) {
    std::copy_n(in + y * p.w, p.w, row + p.pw);
    if (split) {
      for (std::int64_t i = 0; i < padded; i += 2 * kLanes8) {
        const __m256 a = _mm256_loadu_ps(row + i);
        const __m256 b = _mm256_loadu_ps(row + i + kLanes8);
        // [a0 a2 b0 b2 | a4 a6 b4 b6] -> [a0 a2 a4 a6 b0 b2 b4 b6], and the odd ones.
        const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
        const __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
        _mm256_storeu_ps(evens + i / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                            _mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0))));
        _mm256_storeu_ps(odds + i / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                           _mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0))));
      }
    }
    float* dst = maxima + y * width;
    for (std::int64_t x = 0; x < width; x += kLanes8) {
      __m256 m = minus_inf;
      for (std::int64_t j = 0; j < p.kw; ++j) {
        const float* tap = split ? (j % 2 == 0 ? evens : odds) + x + j / 2 : row + x + j;
        m = select_max8(m, _mm256_loadu_ps(tap));
      }
      _mm256_storeu_ps(dst + x, m);
    }
  }
  // Pass 2: each output row the maximum of its window's rows' maxima.
  for (std::int64_t oy = 0; oy < p.oh; ++oy) {
    float* dst = out + oy * p.ow;
    for (std::int64_t x = 0; x < p.ow; x += kLanes8) {
      __m256 m = minus_inf;
      for (std::int64_t i = 0; i < p.kh; ++i) {
        const std::int64_t y = oy * p.sh - p.ph + i;
        if (y < 0 || y >= p.h) continue;  // padding
        m = select_max8(m, _mm256_loadu_ps(maxima + y * width + x));
      }
      const std::int64_t n = std::min(kLanes8, p.ow - x);
      if (n == kLanes8) {
        _mm256_storeu_ps(dst + x, m);
      } else {
        _mm256_maskstore_ps(dst + x, avx2::first_lanes(n), m);
      }
    }
  }
}

}  // namespace

bool max_pool_plane_takes(const PoolPlane& p) {
  return (p.sw == 1 || p.sw == 2) && (cpu_has_avx512f() || cpu_has_avx2_fma());
}

void max_pool_plane_f32(const float* in, float* out, const PoolPlane& p,
                        std::vector<float>& scratch) {
  if (!cpu_has_avx512f()) return pool_avx2(in, out, p, scratch);
  float* maxima = simd::line_aligned(scratch, p.h * round_up_to_lanes(p.ow));
  const bool three = p.kh == 3 && p.kw == 3;
  if (p.sw == 1) {
    three ? pool_avx512<1, 3>(in, out, p, maxima) : pool_avx512<1, 0>(in, out, p, maxima);
  } else {
    three ? pool_avx512<2, 3>(in, out, p, maxima) : pool_avx512<2, 0>(in, out, p, maxima);
  }
}

}  // namespace symbolite::ops
