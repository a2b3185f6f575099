#include "symbolite/ops/vector_math.h"

#include <emmintrin.h>

#include <sleef.h>

namespace symbolite::ops::vec {
namespace {

// Applies `f` (4 lanes at a time) over [0, n); the tail goes through a zero-padded lane.
template <typename F>
void map4(const float* in, float* out, std::int64_t n, F f) {
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, f(_mm_loadu_ps(in + i)));
  if (i < n) {
    alignas(16) float lane[4] = {0, 0, 0, 0};
    for (std::int64_t j = i; j < n; ++j) lane[j - i] = in[j];
    _mm_store_ps(lane, f(_mm_load_ps(lane)));
    for (std::int64_t j = i; j < n; ++j) out[j] = lane[j - i];
  }
}

}  // namespace

void exp_f32(const float* in, float* out, std::int64_t n) {
  map4(in, out, n, [](__m128 x) { return Sleef_expf4_u10(x); });
}

void sigmoid_f32(const float* in, float* out, std::int64_t n) {
  const __m128 one = _mm_set1_ps(1.0f);
  map4(in, out, n, [one](__m128 x) {
    __m128 e = Sleef_expf4_u10(_mm_sub_ps(_mm_setzero_ps(), x));
    return _mm_div_ps(one, _mm_add_ps(one, e));
  });
}

void silu_f32(const float* in, float* out, std::int64_t n) {
  const __m128 one = _mm_set1_ps(1.0f);
  map4(in, out, n, [one](__m128 x) {
    __m128 e = Sleef_expf4_u10(_mm_sub_ps(_mm_setzero_ps(), x));
    return _mm_div_ps(x, _mm_add_ps(one, e));
  });
}

void tanh_f32(const float* in, float* out, std::int64_t n) {
  map4(in, out, n, [](__m128 x) { return Sleef_tanhf4_u10(x); });
}

}  // namespace symbolite::ops::vec
