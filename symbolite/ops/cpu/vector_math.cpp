#include "symbolite/ops/cpu/vector_math.h"

#include <emmintrin.h>

#include <sleef.h>

#include "symbolite/ops/cpu/vector_math_isa.h"
#include "symbolite/support/parallel_for.h"

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

enum class Isa { kSse2, kAvx2, kAvx512 };

// The widest instruction set this CPU runs, checked once.
Isa isa() {
  static const Isa best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Isa::kAvx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
    return Isa::kSse2;
  }();
  return best;
}

void exp_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::exp_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::exp_f32(in, out, n);
  map4(in, out, n, [](__m128 x) { return Sleef_expf4_u10(x); });
}

void sigmoid_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::sigmoid_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::sigmoid_f32(in, out, n);
  const __m128 one = _mm_set1_ps(1.0f);
  map4(in, out, n, [one](__m128 x) {
    __m128 e = Sleef_expf4_u10(_mm_sub_ps(_mm_setzero_ps(), x));
    return _mm_div_ps(one, _mm_add_ps(one, e));
  });
}

void silu_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::silu_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::silu_f32(in, out, n);
  const __m128 one = _mm_set1_ps(1.0f);
  map4(in, out, n, [one](__m128 x) {
    __m128 e = Sleef_expf4_u10(_mm_sub_ps(_mm_setzero_ps(), x));
    return _mm_div_ps(x, _mm_add_ps(one, e));
  });
}

void tanh_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::tanh_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::tanh_f32(in, out, n);
  map4(in, out, n, [](__m128 x) { return Sleef_tanhf4_u10(x); });
}

void hardswish_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::hardswish_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::hardswish_f32(in, out, n);
  const __m128 three = _mm_set1_ps(3.0f);
  const __m128 six = _mm_set1_ps(6.0f);
  const __m128 zero = _mm_setzero_ps();
  map4(in, out, n, [=](__m128 x) {
    __m128 clamped = _mm_min_ps(_mm_max_ps(_mm_add_ps(x, three), zero), six);
    return _mm_div_ps(_mm_mul_ps(x, clamped), six);
  });
}

// Elements are independent, so the array is split across threads with the same result at
// any thread count.
constexpr std::int64_t kElementsPerThread = 32768;

void split(const float* in, float* out, std::int64_t n,
           void (*serial)(const float*, float*, std::int64_t)) {
  parallel_for(n, kElementsPerThread, [&](std::int64_t begin, std::int64_t end) {
    serial(in + begin, out + begin, end - begin);
  });
}

}  // namespace

void exp_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, exp_f32_serial); }
void sigmoid_f32(const float* in, float* out, std::int64_t n) {
  split(in, out, n, sigmoid_f32_serial);
}
void silu_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, silu_f32_serial); }
void tanh_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, tanh_f32_serial); }
void hardswish_f32(const float* in, float* out, std::int64_t n) {
  split(in, out, n, hardswish_f32_serial);
}

}  // namespace symbolite::ops::vec
