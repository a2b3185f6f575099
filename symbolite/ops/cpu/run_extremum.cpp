#include "symbolite/ops/cpu/run_extremum.h"

#include <immintrin.h>

#include <algorithm>

#include "symbolite/ops/cpu/avx512_halves.h"
#include "symbolite/ops/cpu/cpu_features.h"

namespace symbolite::ops {
namespace {

// VMAXPS / VMINPS, zero-masked over every lane (GCC 12 warns on the unmasked forms).
template <bool kMax>
__attribute__((target("avx512f"))) inline __m512 pick(__m512 a, __m512 b) {
  return kMax ? _mm512_maskz_max_ps(avx512::kAllLanes, a, b)
              : _mm512_maskz_min_ps(avx512::kAllLanes, a, b);
}

// Four running vectors (independent chains); a NaN, which VMAXPS drops, noted by an unordered
// compare of each vector with itself.
template <bool kMax>
__attribute__((target("avx512f"))) inline RunExtremum extremum(const float* in, std::int64_t n) {
  const __m512 start = _mm512_set1_ps(kMax ? -__builtin_inff() : __builtin_inff());
  __m512 m0 = start, m1 = start, m2 = start, m3 = start;
  __mmask16 nan = 0;
  std::int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 a = _mm512_loadu_ps(in + i), b = _mm512_loadu_ps(in + i + 16);
    const __m512 c = _mm512_loadu_ps(in + i + 32), d = _mm512_loadu_ps(in + i + 48);
    nan |= _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(c, d, _CMP_UNORD_Q);
    m0 = pick<kMax>(m0, a);
    m1 = pick<kMax>(m1, b);
    m2 = pick<kMax>(m2, c);
    m3 = pick<kMax>(m3, d);
  }
  for (; i < n; i += 16) {
    const __mmask16 lanes =
        n - i >= 16 ? avx512::kAllLanes : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 v = _mm512_mask_loadu_ps(start, lanes, in + i);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    m0 = pick<kMax>(m0, v);
  }
  const __m512 m = pick<kMax>(pick<kMax>(m0, m1), pick<kMax>(m2, m3));
  // The 16 lanes in order (GCC 12 warns inside _mm512_reduce_max_ps).
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, m);
  float best = lanes[0];
  for (int k = 1; k < 16; ++k) best = kMax ? std::max(best, lanes[k]) : std::min(best, lanes[k]);
  return {best, nan != 0};
}

}  // namespace

bool has_vector_extremum() { return cpu_has_avx512f(); }

__attribute__((target("avx512f"))) RunExtremum avx512_max_f32(const float* in, std::int64_t n) {
  return extremum<true>(in, n);
}
__attribute__((target("avx512f"))) RunExtremum avx512_min_f32(const float* in, std::int64_t n) {
  return extremum<false>(in, n);
}

}  // namespace symbolite::ops
