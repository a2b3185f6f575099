#include "symbolite/ops/cpu/gemv.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstddef>

#include "symbolite/ops/cpu/avx2_lanes.h"
#include "symbolite/ops/cpu/avx512_halves.h"
#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace {

// Multiply-adds per thread below which a product stays on one thread.
constexpr std::int64_t kGemvMultiplyAddsPerThread = std::int64_t{1} << 16;

// How far ahead of the rows being read dot_rows prefetches B into L2 when its rows are back
// to back and it is too large to stay in a core's L2 between calls (a classifier's weights,
// read once a run, mostly from memory): the hardware prefetchers stop at each 4 KiB page.
// Into L1 they made the 1280-input classifiers slower (a 4-row block is 20 KiB there).
// A B from kPrefetchFrom on is always prefetched; a smaller one from kPrefetchColdFrom on
// only when it is cold, not the B of one of this thread's last kRecentProducts products: a
// squeeze-and-excitation block's 1x1s on a 1x1 image (220-330 KiB of weights) read theirs
// once a run, mostly from memory, where an LSTM reads its recurrent weights every step, from
// L2 (1.16x slower with prefetches). Figures in docs/PERFORMANCE.md.
constexpr std::int64_t kPrefetchBytes = 32 * 1024;
constexpr std::int64_t kPrefetchFrom = 1024 * 1024;
constexpr std::int64_t kPrefetchColdFrom = 128 * 1024;
constexpr std::uint64_t kRecentProducts = 4;

// Whether `b` was the B of one of this thread's last kRecentProducts products; counts this
// product and remembers its B.
bool read_recently(const float* b) {
  struct Read {
    const float* b = nullptr;
    std::uint64_t product = 0;
  };
  thread_local std::array<Read, kRecentProducts> recent{};
  thread_local std::uint64_t products = 0;
  ++products;
  Read& slot = recent[products % kRecentProducts];
  const bool found = std::any_of(recent.begin(), recent.end(), [&](const Read& read) {
    return read.b == b && products - read.product <= kRecentProducts;
  });
  slot = {b, products};
  return found;
}

// The sums of the 16 lanes of four vectors, in the lanes of one: halves of each added, then
// adjacent pairs (a fixed tree: a row's sum has the same bits whichever rows it is reduced
// with). It was each vector stored and its lanes added one by one: 16 dependent additions,
// which took longer than an LSTM's 128-long dot products themselves.
__attribute__((target("avx512f"))) inline __m128 lane_sums(__m512 s0, __m512 s1, __m512 s2,
                                                           __m512 s3) {
  const __m256 pairs = _mm256_hadd_ps(_mm256_hadd_ps(avx512::halves(s0), avx512::halves(s1)),
                                      _mm256_hadd_ps(avx512::halves(s2), avx512::halves(s3)));
  return _mm_add_ps(_mm256_castps256_ps128(pairs), _mm256_extractf128_ps(pairs, 1));
}

// Row j of B (k long) times a, accumulated 16 lanes at a time; the tail in masked lanes.
__attribute__((target("avx512f"))) inline __m512 row_times(const float* a, const float* row,
                                                           std::int64_t k) {
  __m512 sum = _mm512_setzero_ps();
  std::int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    sum = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(row + i), sum);
  }
  if (i < k) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (k - i)) - 1);
    sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, a + i), _mm512_maskz_loadu_ps(tail, row + i),
                          sum);
  }
  return sum;
}

// c[j] for j in [first, last): four rows of B at a time share each load of a. With
// `prefetch` (B's rows back to back), the four rows' 256 bytes of each step are matched by
// four line prefetches kPrefetchBytes on, so the prefetches run through B at the pace it is
// read.
__attribute__((target("avx512f"))) void dot_rows(std::int64_t first, std::int64_t last,
                                                 std::int64_t k, float alpha, const float* a,
                                                 const float* b, std::int64_t ldb, float beta,
                                                 float* c, bool prefetch) {
  auto store = [&](std::int64_t j, float value) {
    c[j] = beta == 0.0f ? alpha * value : alpha * value + beta * c[j];
  };
  alignas(16) float sums[4];
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
    const char* ahead = reinterpret_cast<const char*>(b0) + kPrefetchBytes;
    for (std::int64_t i = 0; i < full; i += 16) {
      if (prefetch) {
        const char* line = ahead + i * 16;  // 4 rows x 16 floats a step
        _mm_prefetch(line, _MM_HINT_T1);
        _mm_prefetch(line + 64, _MM_HINT_T1);
        _mm_prefetch(line + 128, _MM_HINT_T1);
        _mm_prefetch(line + 192, _MM_HINT_T1);
      }
      const __m512 x = _mm512_loadu_ps(a + i);
      s0 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b0 + i), s0);
      s1 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b1 + i), s1);
      s2 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b2 + i), s2);
      s3 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b3 + i), s3);
    }
    if (full < k) {
      const __mmask16 tail = static_cast<__mmask16>((1u << (k - full)) - 1);
      const __m512 x = _mm512_maskz_loadu_ps(tail, a + full);
      s0 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(tail, b0 + full), s0);
      s1 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(tail, b1 + full), s1);
      s2 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(tail, b2 + full), s2);
      s3 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(tail, b3 + full), s3);
    }
    _mm_store_ps(sums, lane_sums(s0, s1, s2, s3));
    for (int r = 0; r < 4; ++r) store(j + r, sums[r]);
  }
  const __m512 zero = _mm512_setzero_ps();
  for (; j < last; ++j) {
    _mm_store_ps(sums, lane_sums(row_times(a, b + j * ldb, k), zero, zero, zero));
    store(j, sums[0]);
  }
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

// The same two on 8 lanes of AVX2 + FMA, for CPUs without AVX-512 (AMD's before Zen 4,
// Intel's client cores), where oneDNN's sgemm took them: a squeeze-and-excitation 1x1's
// 576 x 144 weights from memory in 69 us against 51 here (docs/PERFORMANCE.md).
// A row's dot product goes in two accumulators of 8 lanes (16 floats a step, as the AVX-512
// build's), added before the same pairwise tree; tails through zero-masked loads. No
// prefetches: on a Zen 3 EPYC they made MobileNetV3's classifier from memory slower (590-650
// against 480-600 us over four alternating rounds).

// lane_sums for four vectors of 8 lanes.
__attribute__((target("avx2,fma"))) inline __m128 lane_sums(__m256 s0, __m256 s1, __m256 s2,
                                                            __m256 s3) {
  const __m256 pairs = _mm256_hadd_ps(_mm256_hadd_ps(s0, s1), _mm256_hadd_ps(s2, s3));
  return _mm_add_ps(_mm256_castps256_ps128(pairs), _mm256_extractf128_ps(pairs, 1));
}

__attribute__((target("avx2,fma"))) void dot_rows_avx2(std::int64_t first, std::int64_t last,
                                                       std::int64_t k, float alpha, const float* a,
                                                       const float* b, std::int64_t ldb, float beta,
                                                       float* c) {
  const std::int64_t full = k - k % 16;
  const std::int64_t rest = k - full;  // 0-15 floats: a vector and a masked one, or a masked one
  const __m256i low = avx2::first_lanes(std::min<std::int64_t>(rest, 8));
  const __m256i high = avx2::first_lanes(std::max<std::int64_t>(rest - 8, 0));
  alignas(16) float sums[4];
  for (std::int64_t j = first; j < last; j += 4) {
    const int rows = static_cast<int>(std::min<std::int64_t>(4, last - j));
    // Rows past `last` repeat the last one: their sums are computed and dropped.
    const float* r[4];
    for (int q = 0; q < 4; ++q) r[q] = b + (j + std::min(q, rows - 1)) * ldb;
    __m256 s[4][2];
    for (auto& row : s) row[0] = row[1] = _mm256_setzero_ps();
    for (std::int64_t i = 0; i < full; i += 16) {
      const __m256 x0 = _mm256_loadu_ps(a + i);
      const __m256 x1 = _mm256_loadu_ps(a + i + 8);
      for (int q = 0; q < 4; ++q) {
        s[q][0] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(r[q] + i), s[q][0]);
        s[q][1] = _mm256_fmadd_ps(x1, _mm256_loadu_ps(r[q] + i + 8), s[q][1]);
      }
    }
    if (rest > 0) {
      const __m256 x0 = _mm256_maskload_ps(a + full, low);
      const __m256 x1 = _mm256_maskload_ps(a + full + 8, high);
      for (int q = 0; q < 4; ++q) {
        s[q][0] = _mm256_fmadd_ps(x0, _mm256_maskload_ps(r[q] + full, low), s[q][0]);
        s[q][1] = _mm256_fmadd_ps(x1, _mm256_maskload_ps(r[q] + full + 8, high), s[q][1]);
      }
    }
    _mm_store_ps(sums, lane_sums(_mm256_add_ps(s[0][0], s[0][1]), _mm256_add_ps(s[1][0], s[1][1]),
                                 _mm256_add_ps(s[2][0], s[2][1]), _mm256_add_ps(s[3][0], s[3][1])));
    for (int q = 0; q < rows; ++q) {
      c[j + q] = beta == 0.0f ? alpha * sums[q] : alpha * sums[q] + beta * c[j + q];
    }
  }
}

__attribute__((target("avx2,fma"))) void sum_rows_avx2(std::int64_t first, std::int64_t last,
                                                       std::int64_t k, float alpha, const float* a,
                                                       const float* b, std::int64_t ldb, float beta,
                                                       float* c) {
  for (std::int64_t j = first; j < last; j += 8) {
    const __m256i mask = avx2::first_lanes(std::min<std::int64_t>(8, last - j));
    __m256 sum = _mm256_setzero_ps();
    for (std::int64_t i = 0; i < k; ++i) {
      sum = _mm256_fmadd_ps(_mm256_set1_ps(a[i]), _mm256_maskload_ps(b + i * ldb + j, mask), sum);
    }
    __m256 result = _mm256_mul_ps(_mm256_set1_ps(alpha), sum);
    if (beta != 0.0f) {
      result = _mm256_fmadd_ps(_mm256_set1_ps(beta), _mm256_maskload_ps(c + j, mask), result);
    }
    _mm256_maskstore_ps(c + j, mask, result);
  }
}

}  // namespace

bool sgemv(bool trans_b, std::int64_t n, std::int64_t k, float alpha, const float* a,
           const float* b, std::int64_t ldb, float beta, float* c) {
  const bool avx512 = cpu_has_avx512f();
  if (!avx512 && !cpu_has_avx2_fma()) return false;
  const std::int64_t bytes = n * k * std::int64_t{sizeof(float)};
  const bool cold = !read_recently(b);  // every product counts towards recency
  const bool prefetch =
      trans_b && ldb == k && (bytes >= kPrefetchFrom || (bytes >= kPrefetchColdFrom && cold));
  // Columns per piece: enough multiply-adds to pay for a hand-off, in whole vectors.
  const std::int64_t grain =
      std::max<std::int64_t>(16, (kGemvMultiplyAddsPerThread / std::max<std::int64_t>(1, k)) & ~15);
  parallel_for(n, grain, [&](std::int64_t first, std::int64_t last) {
    if (trans_b) {
      if (avx512) {
        dot_rows(first, last, k, alpha, a, b, ldb, beta, c, prefetch);
      } else {
        dot_rows_avx2(first, last, k, alpha, a, b, ldb, beta, c);
      }
    } else {
      (avx512 ? sum_rows : sum_rows_avx2)(first, last, k, alpha, a, b, ldb, beta, c);
    }
  });
  return true;
}

}  // namespace symbolite::ops
