#include "symbolite/ops/cpu/strided_copy.h"

#include <immintrin.h>

#include "symbolite/ops/cpu/cpu_features.h"

namespace symbolite::ops {
namespace {

void copy_scalar(const float* src, std::int64_t stride, float* dst, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i * stride];
}

// Stride 2: two loads of 16 lanes, one two-source permute picking the even lanes.
__attribute__((target("avx512f"))) void copy_avx512(const float* src, std::int64_t stride,
                                                    float* dst, std::int64_t n) {
  if (stride != 2) return copy_scalar(src, stride, dst, n);
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  std::int64_t i = 0;
  // A block reads src[2i .. 2i + 31]; the last element wanted is src[2(n - 1)], so a block
  // runs only while i + 16 < n and never reads past it.
  for (; i + 16 < n; i += 16) {
    const __m512 lo = _mm512_loadu_ps(src + 2 * i);
    const __m512 hi = _mm512_loadu_ps(src + 2 * i + 16);
    _mm512_storeu_ps(dst + i, _mm512_permutex2var_ps(lo, even, hi));
  }
  copy_scalar(src + 2 * i, 2, dst + i, n - i);
}

}  // namespace

void strided_copy_f32(const float* src, std::int64_t stride, float* dst, std::int64_t n) {
  if (n <= 0) return;
  if (stride == 1) {
    for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];
    return;
  }
  if (cpu_has_avx512f()) {
    copy_avx512(src, stride, dst, n);
  } else {
    copy_scalar(src, stride, dst, n);
  }
}

}  // namespace symbolite::ops
