#include "symbolite/ops/cpu/layer_norm_row.h"

#include <immintrin.h>

#include <cmath>

#include "symbolite/ops/cpu/cpu_features.h"

namespace symbolite::ops {
namespace {

// y = (x - mean) * rstd * w + b from element `from` on, in double.
template <typename T>
void finish(const T* x, T* y, std::int64_t from, std::int64_t m, const T* w, const T* b,
            double mean, double rstd) {
  for (std::int64_t i = from; i < m; ++i) {
    double v = (x[i] - mean) * rstd;
    if (w != nullptr) v *= w[i];
    if (b != nullptr) v += b[i];
    y[i] = static_cast<T>(v);
  }
}

// The plain loops: float32 without AVX-512, and float64.
template <typename T>
void row_scalar(const T* x, T* y, std::int64_t m, const T* w, const T* b, double eps) {
  double sum = 0;
  for (std::int64_t i = 0; i < m; ++i) sum += x[i];
  const double mean = sum / static_cast<double>(m);
  double sq = 0;
  for (std::int64_t i = 0; i < m; ++i) sq += (x[i] - mean) * (x[i] - mean);
  finish(x, y, 0, m, w, b, mean, 1.0 / std::sqrt(sq / static_cast<double>(m) + eps));
}

// Eight floats widened to doubles (the zero-masked form: the unmasked one trips GCC 12's
// uninitialized-value warning).
__attribute__((target("avx512f"))) __m512d widen(const float* p) {
  return _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(p));
}

__attribute__((target("avx512f"))) double lanes_sum(__m512d v) {
  alignas(64) double lane[8];
  _mm512_store_pd(lane, v);
  double sum = 0;
  for (double d : lane) sum += d;
  return sum;
}

// Eight elements' x (kSquares false) or (x - mu)^2 (true). A template flag rather than a
// lambda: lambdas do not take the target attribute.
template <bool kSquares>
__attribute__((target("avx512f"), always_inline)) inline __m512d term(const float* x, __m512d mu) {
  __m512d v = widen(x);
  if constexpr (kSquares) {
    v = _mm512_sub_pd(v, mu);
    v = _mm512_mul_pd(v, v);
  }
  return v;
}

// The sum of term() over the row's whole vectors in four running sums (one waits on each
// addition: a 96-wide row is 12 in a chain), added in a fixed order.
template <bool kSquares>
__attribute__((target("avx512f"))) double vector_sum(const float* x, std::int64_t full,
                                                     __m512d mu) {
  __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;  // named: an array spills
  std::int64_t i = 0;
  for (; i + 32 <= full; i += 32) {
    a0 = _mm512_add_pd(a0, term<kSquares>(x + i, mu));
    a1 = _mm512_add_pd(a1, term<kSquares>(x + i + 8, mu));
    a2 = _mm512_add_pd(a2, term<kSquares>(x + i + 16, mu));
    a3 = _mm512_add_pd(a3, term<kSquares>(x + i + 24, mu));
  }
  if (i < full) a0 = _mm512_add_pd(a0, term<kSquares>(x + i, mu));
  if (i + 8 < full) a1 = _mm512_add_pd(a1, term<kSquares>(x + i + 8, mu));
  if (i + 16 < full) a2 = _mm512_add_pd(a2, term<kSquares>(x + i + 16, mu));
  return lanes_sum(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
}

__attribute__((target("avx512f"))) void row_avx512(const float* x, float* y, std::int64_t m,
                                                   const float* w, const float* b, double eps) {
  const std::int64_t full = m - m % 8;
  double sum = vector_sum<false>(x, full, _mm512_setzero_pd());
  for (std::int64_t i = full; i < m; ++i) sum += x[i];
  const double mean = sum / static_cast<double>(m);
  const __m512d mu = _mm512_set1_pd(mean);
  double sq = vector_sum<true>(x, full, mu);
  for (std::int64_t i = full; i < m; ++i) sq += (x[i] - mean) * (x[i] - mean);
  const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(m) + eps);
  const __m512d rs = _mm512_set1_pd(rstd);
  for (std::int64_t i = 0; i < full; i += 8) {
    __m512d v = _mm512_mul_pd(_mm512_sub_pd(widen(x + i), mu), rs);
    if (w != nullptr) v = _mm512_mul_pd(v, widen(w + i));
    if (b != nullptr) v = _mm512_add_pd(v, widen(b + i));
    _mm256_storeu_ps(y + i, _mm512_maskz_cvtpd_ps(0xFF, v));
  }
  finish(x, y, full, m, w, b, mean, rstd);
}

}  // namespace

void layer_norm_row_f32(const float* x, float* y, std::int64_t m, const float* w, const float* b,
                        double eps) {
  if (m <= 0) return;
  if (cpu_has_avx512f()) {
    row_avx512(x, y, m, w, b, eps);
  } else {
    row_scalar(x, y, m, w, b, eps);
  }
}

void layer_norm_row_f64(const double* x, double* y, std::int64_t m, const double* w,
                        const double* b, double eps) {
  if (m > 0) row_scalar(x, y, m, w, b, eps);
}

}  // namespace symbolite::ops
