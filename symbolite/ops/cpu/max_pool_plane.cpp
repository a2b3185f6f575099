#include "symbolite/ops/cpu/max_pool_plane.h"

#include <immintrin.h>

#include <algorithm>
#include <limits>

#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/ops/cpu/float_lanes.h"
#include "symbolite/ops/cpu/running_max.h"
#include "symbolite/ops/cpu/window_columns.h"

namespace symbolite::ops {
namespace {

constexpr std::int64_t kLanes = 16;

std::int64_t round_up(std::int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

// `maxima` holds every input row's column maxima (pass 1), `padded_width` (ow in whole
// vectors) apart. SW is p.sw; K the window's height and width where it is K x K at compile
// time (3: the tap loops unrolled, 1.05x on SqueezeNet's first pool), else 0.
template <int SW, int K>
__attribute__((target("avx512f"))) void pool_avx512(const float* in, float* out, const PoolPlane& p,
                                                    float* maxima) {
  const std::int64_t kw = K > 0 ? K : p.kw;
  const std::int64_t kh = K > 0 ? K : p.kh;
  const std::int64_t padded_width = round_up(p.ow);
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  // Pass 1: each input row's maxima over the window's columns, for every output column: tap
  // j of output column x reads input column x * sw - pw + j.
  for (std::int64_t y = 0; y < p.h; ++y) {
    const float* row = in + y * p.w;
    float* dst = maxima + y * padded_width;
    for (std::int64_t x = 0; x < padded_width; x += kLanes) {
      __m512 m = minus_inf;
      const std::int64_t first = x * SW - p.pw;
      if (window_taps_inside(x, SW, p.pw, kw, p.w)) {
        for (std::int64_t j = 0; j < kw; ++j) m = select_max16(m, inside_tap<SW>(row, first + j));
      } else {
        for (std::int64_t j = 0; j < kw; ++j) {
          m = select_max16(m, window_tap(row, first + j, SW, p.w, minus_inf));
        }
      }
      _mm512_storeu_ps(dst + x, m);
    }
  }
  // Pass 2: each output row the maximum of its window's rows' maxima.
  for (std::int64_t oy = 0; oy < p.oh; ++oy) {
    float* dst = out + oy * p.ow;
    for (std::int64_t x = 0; x < p.ow; x += kLanes) {
      __m512 m = minus_inf;
      for (std::int64_t i = 0; i < kh; ++i) {
        const std::int64_t y = oy * p.sh - p.ph + i;
        if (y < 0 || y >= p.h) continue;  // padding
        m = select_max16(m, _mm512_loadu_ps(maxima + y * padded_width + x));
      }
      const std::int64_t n = std::min(kLanes, p.ow - x);
      _mm512_mask_storeu_ps(dst + x, static_cast<__mmask16>((1u << n) - 1), m);
    }
  }
}

}  // namespace

bool max_pool_plane_takes(const PoolPlane& p) {
  return (p.sw == 1 || p.sw == 2) && cpu_has_avx512f();
}

void max_pool_plane_f32(const float* in, float* out, const PoolPlane& p,
                        std::vector<float>& scratch) {
  float* maxima = simd::line_aligned(scratch, p.h * round_up(p.ow));
  const bool three = p.kh == 3 && p.kw == 3;
  if (p.sw == 1) {
    three ? pool_avx512<1, 3>(in, out, p, maxima) : pool_avx512<1, 0>(in, out, p, maxima);
  } else {
    three ? pool_avx512<2, 3>(in, out, p, maxima) : pool_avx512<2, 0>(in, out, p, maxima);
  }
}

}  // namespace symbolite::ops
