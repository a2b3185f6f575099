#include "symbolite/ops/cpu/avg_pool_plane.h"

#include <immintrin.h>

#include <algorithm>

#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/ops/cpu/float_lanes.h"
#include "symbolite/ops/cpu/window_columns.h"

namespace symbolite::ops {
namespace {

constexpr int kBatch = 4;  // vectors of outputs summed side by side: four add chains in flight

// The plane with its padding as zeros, every window of it inside: rows (oh - 1) * sh + kh,
// `pitch` columns apart, enough for 16-wide loads of every output vector's taps.
struct PaddedPlane {
  std::int64_t rows, pitch;
};

PaddedPlane padded_shape(const PoolPlane& p) {
  return {(p.oh - 1) * p.sh + p.kh,
          round_up_to_lanes(p.sw * round_up_to_lanes(p.ow) + p.kw + kPlaneLanes)};
}

// In vectors of 16 (window_columns' masked loads): a memcpy and two fills a row cost more than
// the sums on Inception's 17 x 17 planes.
__attribute__((target("avx512f"))) void fill_padded(const float* in, const PoolPlane& p,
                                                    PaddedPlane shape, float* padded) {
  const __m512 zero = _mm512_setzero_ps();
  for (std::int64_t r = 0; r < shape.rows; ++r) {
    float* dst = padded + r * shape.pitch;
    const std::int64_t y = r - p.ph;
    const bool inside = y >= 0 && y < p.h;
    for (std::int64_t c = 0; c < shape.pitch; c += kPlaneLanes) {
      _mm512_storeu_ps(dst + c, inside ? window_columns(in + y * p.w, c - p.pw, p.w, zero) : zero);
    }
  }
}

// One vector of outputs: its taps start at `taps` in the padded plane.
struct OutputVector {
  const float* taps;
  float* out;
  const float* divisors;
  __mmask16 lanes;
};

// The sums of `n` output vectors (n <= kBatch), each adding its taps in window order from +0
// (padding taps add +0: no sum changes), then PyTorch's `0 + sum / divisor`.
template <int N>
__attribute__((target("avx512f"))) inline void average(const OutputVector* v, const PoolPlane& p,
                                                       std::int64_t pitch) {
  const __m512 zero = _mm512_setzero_ps();
  const __m512i even_lanes =
      _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  __m512 sum[N];
  for (int k = 0; k < N; ++k) sum[k] = zero;
  for (std::int64_t i = 0; i < p.kh; ++i) {
    for (std::int64_t j = 0; j < p.kw; ++j) {
      const std::int64_t at = i * pitch + j;
      for (int k = 0; k < N; ++k) {
        const float* tap = v[k].taps + at;
        const __m512 x = p.sw == 1 ? _mm512_loadu_ps(tap)
                                   : _mm512_permutex2var_ps(_mm512_loadu_ps(tap), even_lanes,
                                                            _mm512_loadu_ps(tap + kPlaneLanes));
        sum[k] = _mm512_add_ps(sum[k], x);
      }
    }
  }
  for (int k = 0; k < N; ++k) {
    const __m512 divisor = _mm512_mask_loadu_ps(_mm512_set1_ps(1.0f), v[k].lanes, v[k].divisors);
    _mm512_mask_storeu_ps(v[k].out, v[k].lanes,
                          _mm512_add_ps(zero, _mm512_div_ps(sum[k], divisor)));
  }
}

__attribute__((target("avx512f"))) void pool_avx512(const float* in, float* out, const PoolPlane& p,
                                                    const float* divisors, float* padded) {
  const PaddedPlane shape = padded_shape(p);
  fill_padded(in, p, shape, padded);
  OutputVector batch[kBatch];
  int n = 0;
  for (std::int64_t oy = 0; oy < p.oh; ++oy) {
    for (std::int64_t x = 0; x < p.ow; x += kPlaneLanes) {
      batch[n++] = {padded + oy * p.sh * shape.pitch + x * p.sw, out + oy * p.ow + x,
                    divisors + oy * p.ow + x,
                    static_cast<__mmask16>((1u << std::min(kPlaneLanes, p.ow - x)) - 1)};
      if (n == kBatch) {
        average<kBatch>(batch, p, shape.pitch);
        n = 0;
      }
    }
  }
  for (int k = 0; k < n; ++k) average<1>(batch + k, p, shape.pitch);
}

}  // namespace

bool avg_pool_plane_takes(const PoolPlane& p) {
  return (p.sw == 1 || p.sw == 2) && cpu_has_avx512f();
}

void avg_pool_plane_f32(const float* in, float* out, const PoolPlane& p, const float* divisors,
                        std::vector<float>& scratch) {
  const PaddedPlane shape = padded_shape(p);
  pool_avx512(in, out, p, divisors, simd::line_aligned(scratch, shape.rows * shape.pitch));
}

}  // namespace symbolite::ops
