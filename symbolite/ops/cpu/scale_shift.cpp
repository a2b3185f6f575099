#include "symbolite/ops/cpu/scale_shift.h"

#include <immintrin.h>

#include <cmath>

#include "symbolite/ops/cpu/cpu_features.h"

namespace symbolite::ops {
namespace {

void scale_shift_scalar(const float* in, float* out, std::int64_t n, float scale, float shift) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = in[i] * scale + shift;
}

__attribute__((target("avx2,fma"))) void scale_shift_avx2(const float* in, float* out,
                                                          std::int64_t n, float scale,
                                                          float shift) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256 b = _mm256_set1_ps(shift);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, _mm256_fmadd_ps(_mm256_loadu_ps(in + i), s, b));
  }
  for (; i < n; ++i) out[i] = std::fma(in[i], scale, shift);  // VFMADD here
}

__attribute__((target("avx512f"))) void scale_shift_avx512(const float* in, float* out,
                                                           std::int64_t n, float scale,
                                                           float shift) {
  const __m512 s = _mm512_set1_ps(scale);
  const __m512 b = _mm512_set1_ps(shift);
  for (std::int64_t i = 0; i < n; i += 16) {
    const __mmask16 lanes =
        n - i >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 x = _mm512_maskz_loadu_ps(lanes, in + i);
    _mm512_mask_storeu_ps(out + i, lanes, _mm512_fmadd_ps(x, s, b));
  }
}

}  // namespace

void scale_shift_f32(const float* in, float* out, std::int64_t n, float scale, float shift) {
  if (n <= 0) return;
  if (cpu_has_avx512f()) {
    scale_shift_avx512(in, out, n, scale, shift);
  } else if (cpu_has_avx2_fma()) {
    scale_shift_avx2(in, out, n, scale, shift);
  } else {
    scale_shift_scalar(in, out, n, scale, shift);
  }
}

}  // namespace symbolite::ops
