// vector_math.h on 16 lanes of AVX-512F (see vector_math_isa.h).
#include <immintrin.h>

#include <sleef.h>

#include "symbolite/ops/cpu/vector_math_isa.h"

namespace symbolite::ops::vec::avx512 {
namespace {

// Applies `f` 16 lanes at a time; the tail goes through a zero-padded lane.
template <typename F>
void map16(const float* in, float* out, std::int64_t n, F f) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, f(_mm512_loadu_ps(in + i)));
  if (i < n) {
    alignas(64) float lane[16] = {};
    for (std::int64_t j = i; j < n; ++j) lane[j - i] = in[j];
    _mm512_store_ps(lane, f(_mm512_load_ps(lane)));
    for (std::int64_t j = i; j < n; ++j) out[j] = lane[j - i];
  }
}

}  // namespace

void exp_f32(const float* in, float* out, std::int64_t n) {
  map16(in, out, n, [](__m512 x) { return Sleef_expf16_u10avx512f(x); });
}

void sigmoid_f32(const float* in, float* out, std::int64_t n) {
  const __m512 one = _mm512_set1_ps(1.0f);
  map16(in, out, n, [one](__m512 x) {
    __m512 e = Sleef_expf16_u10avx512f(_mm512_sub_ps(_mm512_setzero_ps(), x));
    return _mm512_div_ps(one, _mm512_add_ps(one, e));
  });
}

void silu_f32(const float* in, float* out, std::int64_t n) {
  const __m512 one = _mm512_set1_ps(1.0f);
  map16(in, out, n, [one](__m512 x) {
    __m512 e = Sleef_expf16_u10avx512f(_mm512_sub_ps(_mm512_setzero_ps(), x));
    return _mm512_div_ps(x, _mm512_add_ps(one, e));
  });
}

void tanh_f32(const float* in, float* out, std::int64_t n) {
  map16(in, out, n, [](__m512 x) { return Sleef_tanhf16_u10avx512f(x); });
}

void hardswish_f32(const float* in, float* out, std::int64_t n) {
  const __m512 three = _mm512_set1_ps(3.0f);
  const __m512 six = _mm512_set1_ps(6.0f);
  const __m512 zero = _mm512_setzero_ps();
  map16(in, out, n, [=](__m512 x) {
    // The zero-masked forms: GCC 12 warns that the plain ones' undefined pass-through
    // operand "may be used uninitialized".
    const __mmask16 all = 0xFFFF;
    __m512 clamped =
        _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, _mm512_add_ps(x, three), zero), six);
    return _mm512_div_ps(_mm512_mul_ps(x, clamped), six);
  });
}

}  // namespace symbolite::ops::vec::avx512
