// vector_math.h on 8 lanes of AVX2 + FMA (see vector_math_isa.h).
#include <immintrin.h>

#include <sleef.h>

#include "symbolite/ops/cpu/vector_math_isa.h"

namespace symbolite::ops::vec::avx2 {
namespace {

// Applies `f` 8 lanes at a time; the tail goes through a zero-padded lane.
template <typename F>
void map8(const float* in, float* out, std::int64_t n, F f) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, f(_mm256_loadu_ps(in + i)));
  if (i < n) {
    alignas(32) float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (std::int64_t j = i; j < n; ++j) lane[j - i] = in[j];
    _mm256_store_ps(lane, f(_mm256_load_ps(lane)));
    for (std::int64_t j = i; j < n; ++j) out[j] = lane[j - i];
  }
}

}  // namespace

void exp_f32(const float* in, float* out, std::int64_t n) {
  map8(in, out, n, [](__m256 x) { return Sleef_expf8_u10avx2(x); });
}

void sigmoid_f32(const float* in, float* out, std::int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  map8(in, out, n, [one](__m256 x) {
    __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_setzero_ps(), x));
    return _mm256_div_ps(one, _mm256_add_ps(one, e));
  });
}

void silu_f32(const float* in, float* out, std::int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  map8(in, out, n, [one](__m256 x) {
    __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_setzero_ps(), x));
    return _mm256_div_ps(x, _mm256_add_ps(one, e));
  });
}

void tanh_f32(const float* in, float* out, std::int64_t n) {
  map8(in, out, n, [](__m256 x) { return Sleef_tanhf8_u10avx2(x); });
}

void hardswish_f32(const float* in, float* out, std::int64_t n) {
  const __m256 three = _mm256_set1_ps(3.0f);
  const __m256 six = _mm256_set1_ps(6.0f);
  const __m256 zero = _mm256_setzero_ps();
  map8(in, out, n, [=](__m256 x) {
    __m256 clamped = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(x, three), zero), six);
    return _mm256_div_ps(_mm256_mul_ps(x, clamped), six);
  });
}

}  // namespace symbolite::ops::vec::avx2
