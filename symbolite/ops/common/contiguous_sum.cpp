#include "symbolite/ops/common/contiguous_sum.h"

#include <immintrin.h>

#include <algorithm>

#include "symbolite/ops/cpu/avx512_halves.h"
#include "symbolite/ops/cpu/cpu_features.h"

namespace symbolite::ops {
namespace {

// Element i goes to partial sum i % 16 (lanes 0-7 of `lo`, 8-15 of `hi`); the partials are
// added in a fixed tree, then the tail one by one: the same order for every call.
__attribute__((target("avx512f"))) double sum_avx512(const float* in, std::int64_t n) {
  __m512d lo = _mm512_setzero_pd();
  __m512d hi = _mm512_setzero_pd();
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    lo = _mm512_add_pd(lo, _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(in + i)));
    hi = _mm512_add_pd(hi, _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(in + i + 8)));
  }
  // Halves, quarters, then the last two lanes.
  const __m256d half = avx512::halves(_mm512_add_pd(lo, hi));
  const __m128d quarter = _mm_add_pd(_mm256_castpd256_pd128(half), _mm256_extractf128_pd(half, 1));
  double sum = _mm_cvtsd_f64(quarter) + _mm_cvtsd_f64(_mm_unpackhi_pd(quarter, quarter));
  for (; i < n; ++i) sum += static_cast<double>(in[i]);
  return sum;
}

// Each sum in a register across the rows: one load and one store of it for all `rows` rows
// rather than one a row, the additions in row order.
__attribute__((target("avx512f"))) void accumulate_avx512(const float* in, std::int64_t row_stride,
                                                          std::int64_t rows, double* sums,
                                                          std::int64_t n) {
  std::int64_t i = 0;
  // 32 sums at a time: four chains of additions in flight.
  for (; i + 32 <= n; i += 32) {
    __m512d s0 = _mm512_loadu_pd(sums + i), s1 = _mm512_loadu_pd(sums + i + 8);
    __m512d s2 = _mm512_loadu_pd(sums + i + 16), s3 = _mm512_loadu_pd(sums + i + 24);
    const float* p = in + i;
    for (std::int64_t r = 0; r < rows; ++r, p += row_stride) {
      s0 = _mm512_add_pd(s0, _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(p)));
      s1 = _mm512_add_pd(s1, _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(p + 8)));
      s2 = _mm512_add_pd(s2, _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(p + 16)));
      s3 = _mm512_add_pd(s3, _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(p + 24)));
    }
    _mm512_storeu_pd(sums + i, s0);
    _mm512_storeu_pd(sums + i + 8, s1);
    _mm512_storeu_pd(sums + i + 16, s2);
    _mm512_storeu_pd(sums + i + 24, s3);
  }
  for (; i + 8 <= n; i += 8) {
    __m512d s = _mm512_loadu_pd(sums + i);
    const float* p = in + i;
    for (std::int64_t r = 0; r < rows; ++r, p += row_stride) {
      s = _mm512_add_pd(s, _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(p)));
    }
    _mm512_storeu_pd(sums + i, s);
  }
  for (; i < n; ++i) {
    for (std::int64_t r = 0; r < rows; ++r) sums[i] += static_cast<double>(in[r * row_stride + i]);
  }
}

}  // namespace

void accumulate(const float* in, std::int64_t row_stride, std::int64_t rows, double* sums,
                std::int64_t n) {
  static const bool avx512 = cpu_has_avx512f();
  if (avx512) return accumulate_avx512(in, row_stride, rows, sums, n);
  accumulate<float>(in, row_stride, rows, sums, n);
}

double contiguous_sum(const float* in, std::int64_t n) {
  static const bool avx512 = cpu_has_avx512f();
  return avx512 ? sum_avx512(in, n) : contiguous_sum<float>(in, n);
}

bool reduces_trailing_run(const tensor::Tensor& t, const std::vector<bool>& mask) {
  if (!t.is_contiguous() || t.dim() == 0 || !mask.back()) return false;
  std::size_t d = mask.size();
  while (d > 0 && mask[d - 1]) --d;
  return std::none_of(mask.begin(), mask.begin() + static_cast<std::ptrdiff_t>(d),
                      [](bool reduced) { return reduced; });
}

}  // namespace symbolite::ops
