#include "symbolite/ops/cpu/gemv.h"

#include <immintrin.h>

#include <algorithm>

#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace {

// Multiply-adds per thread below which a product stays on one thread.
constexpr std::int64_t kMultiplyAddsPerThread = std::int64_t{1} << 16;

// The sum of the 16 lanes, in order, through memory (GCC 12 warns of uninitialized values in
// _mm512_reduce_add_ps and the lane shuffles; once per dot product, the cost is nothing).
__attribute__((target("avx512f"))) inline float lane_sum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float sum = 0.0f;
  for (float lane : lanes) sum += lane;
  return sum;
}

__attribute__((target("avx512f"))) float dot(const float* a, const float* b, std::int64_t k) {
  __m512 sum = _mm512_setzero_ps();
  std::int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    sum = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), sum);
  }
  if (i < k) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (k - i)) - 1);
    sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, a + i), _mm512_maskz_loadu_ps(tail, b + i),
                          sum);
  }
  return lane_sum(sum);
}

// c[j] for j in [first, last): four rows of B at a time share each load of a.
__attribute__((target("avx512f"))) void dot_rows(std::int64_t first, std::int64_t last,
                                                 std::int64_t k, float alpha, const float* a,
                                                 const float* b, std::int64_t ldb, float beta,
                                                 float* c) {
  auto store = [&](std::int64_t j, float value) {
    c[j] = beta == 0.0f ? alpha * value : alpha * value + beta * c[j];
  };
  std::int64_t j = first;
  const std::int64_t full = k - k % 16;
  for (; j + 4 <= last; j += 4) {
    const float* b0 = b + j * ldb;
    const float* b1 = b0 + ldb;
    const float* b2 = b1 + ldb;
    const float* b3 = b2 + ldb;
    __m512 s0 = _mm512_setzero_ps();
    __m512 s1 = s0;
    __m512 s2 = s0;
    __m512 s3 = s0;
    for (std::int64_t i = 0; i < full; i += 16) {
      const __m512 x = _mm512_loadu_ps(a + i);
      s0 = _mm512_fmadd_ps(_mm512_loadu_ps(b0 + i), x, s0);
      s1 = _mm512_fmadd_ps(_mm512_loadu_ps(b1 + i), x, s1);
      s2 = _mm512_fmadd_ps(_mm512_loadu_ps(b2 + i), x, s2);
      s3 = _mm512_fmadd_ps(_mm512_loadu_ps(b3 + i), x, s3);
    }
    if (full < k) {
      const __mmask16 tail = static_cast<__mmask16>((1u << (k - full)) - 1);
      const __m512 x = _mm512_maskz_loadu_ps(tail, a + full);
      s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, b0 + full), x, s0);
      s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, b1 + full), x, s1);
      s2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, b2 + full), x, s2);
      s3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, b3 + full), x, s3);
    }
    store(j, lane_sum(s0));
    store(j + 1, lane_sum(s1));
    store(j + 2, lane_sum(s2));
    store(j + 3, lane_sum(s3));
  }
  for (; j < last; ++j) store(j, dot(a, b + j * ldb, k));
}

// c[first, last) = alpha * sum over i of a[i] * B[i, first:last] (+ beta * c).
__attribute__((target("avx512f"))) void sum_rows(std::int64_t first, std::int64_t last,
                                                 std::int64_t k, float alpha, const float* a,
                                                 const float* b, std::int64_t ldb, float beta,
                                                 float* c) {
  for (std::int64_t j = first; j < last; j += 16) {
    const std::int64_t lanes = std::min<std::int64_t>(16, last - j);
    const __mmask16 mask = static_cast<__mmask16>((1u << lanes) - 1);
    __m512 sum = _mm512_setzero_ps();
    for (std::int64_t i = 0; i < k; ++i) {
      sum =
          _mm512_fmadd_ps(_mm512_set1_ps(a[i]), _mm512_maskz_loadu_ps(mask, b + i * ldb + j), sum);
    }
    __m512 result = _mm512_mul_ps(_mm512_set1_ps(alpha), sum);
    if (beta != 0.0f) {
      result = _mm512_fmadd_ps(_mm512_set1_ps(beta), _mm512_maskz_loadu_ps(mask, c + j), result);
    }
    _mm512_mask_storeu_ps(c + j, mask, result);
  }
}

}  // namespace

bool sgemv(bool trans_b, std::int64_t n, std::int64_t k, float alpha, const float* a,
           const float* b, std::int64_t ldb, float beta, float* c) {
  if (!cpu_has_avx512f()) return false;
  // Columns per piece: enough multiply-adds to pay for a hand-off, in whole vectors.
  const std::int64_t grain =
      std::max<std::int64_t>(16, (kMultiplyAddsPerThread / std::max<std::int64_t>(1, k)) & ~15);
  parallel_for(n, grain, [&](std::int64_t first, std::int64_t last) {
    if (trans_b) {
      dot_rows(first, last, k, alpha, a, b, ldb, beta, c);
    } else {
      sum_rows(first, last, k, alpha, a, b, ldb, beta, c);
    }
  });
  return true;
}

}  // namespace symbolite::ops
