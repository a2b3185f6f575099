#include "symbolite/ops/cpu/running_max.h"

#include <immintrin.h>

#include <cmath>

#include "symbolite/ops/cpu/cpu_features.h"

namespace symbolite::ops {
namespace {

void max_scalar(const float* in, float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = in[i];
    out[i] = (v > out[i] || std::isnan(v)) ? v : out[i];
  }
}

__attribute__((target("avx512f"))) void max_avx512(const float* in, float* out, std::int64_t n) {
  // (A lambda here would not inherit the target attribute.)
  for (std::int64_t i = 0; i < n; i += 16) {
    const __mmask16 lanes =
        n - i >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 v = _mm512_maskz_loadu_ps(lanes, in + i);
    const __m512 m = _mm512_maskz_loadu_ps(lanes, out + i);
    _mm512_mask_storeu_ps(out + i, lanes, select_max16(m, v));
  }
}

}  // namespace

void running_max_f32(const float* in, float* out, std::int64_t n) {
  if (n <= 0) return;
  if (cpu_has_avx512f()) {
    max_avx512(in, out, n);
  } else {
    max_scalar(in, out, n);
  }
}

}  // namespace symbolite::ops
