#include "symbolite/ops/cpu/packed_weight_product.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "symbolite/ops/cpu/avx2_lanes.h"
#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/ops/cpu/float_lanes.h"
#include "symbolite/ops/cpu/weight_plan_cache.h"
#include "symbolite/support/float_control.h"
#include "symbolite/support/mapped_file.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
// Named, so that a unity build's batch of files shares none of these names (kBlock, tile).
namespace packed_product {
namespace {

constexpr std::int64_t kLanes = 8;
// Columns a block: three vectors. A tile of four rows holds 12 accumulators, the three weight
// vectors of a step and a broadcast row element: 16 registers. (Six rows by two vectors, the
// usual AVX2 shape, ran at 57-61 GFLOP/s against 64-86 on the Zen 3 machine: twice the
// broadcasts per multiply-add. docs/PERFORMANCE.md.)
constexpr std::int64_t kBlock = 24;
constexpr int kVectors = kBlock / kLanes;
constexpr int kRows = 4;
// Steps of the sum a pass over a block's rows takes: the block's weights for them (24 KB) stay
// in L1 while every row tile reads them; the sums wait in c between passes (a float either
// way: the same bits).
constexpr std::int64_t kDepthPerPass = 256;
// Products smaller than this stay on sgemm (packing is not worth it); and the multiply-adds a
// thread must have before a product is split.
constexpr std::int64_t kMinMultiplyAdds = std::int64_t{1} << 18;
constexpr std::int64_t kMultiplyAddsPerThread = std::int64_t{1} << 20;

// B packed by blocks of kBlock columns: for block j, k rows of kBlock floats, row kk holding
// B(kk, kBlock j .. kBlock j + kBlock - 1), zero past column n.
struct PackedWeights {
  std::vector<float> storage;
  const float* data = nullptr;
};

std::shared_ptr<const PackedWeights> pack(const float* b, bool transposed, std::int64_t n,
                                          std::int64_t k) {
  auto packed = std::make_shared<PackedWeights>();
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  // Fresh storage, so its columns past n are the zeros the vector was grown with.
  float* out = simd::line_aligned(packed->storage, blocks * k * kBlock);
  for (std::int64_t col = 0; col < n; ++col) {
    float* column = out + col / kBlock * k * kBlock + col % kBlock;
    if (transposed) {  // b is n x k: column col of B is row col of b
      const float* row = b + col * k;
      for (std::int64_t kk = 0; kk < k; ++kk) column[kk * kBlock] = row[kk];
    } else {
      for (std::int64_t kk = 0; kk < k; ++kk) column[kk * kBlock] = b[kk * n + col];
    }
  }
  packed->data = out;
  return packed;
}

// One pass of a tile: steps [from, from + depth) of its sums.
struct Pass {
  bool first;  // the sums start from zero, else from c
  bool last;   // the sums end: beta * c (read before any pass wrote it) and the bias added
  float beta;
  const float* bias;  // the block's first column's, or null
};

// A whole vector, or the lanes of `lanes` (the others zero).
__attribute__((target("avx2,fma"))) inline __m256 load(const float* p, bool whole, __m256i lanes) {
  return whole ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lanes);
}

// R rows (a, lda apart) by V vectors of columns, the last holding `tail` (1-8) columns: c[r][col]
// += the sum over the pass's steps of a[r][kk] * w[kk][col], each step a fused multiply-add.
template <int R, int V>
__attribute__((target("avx2,fma"))) void tile(const float* a, std::int64_t lda, const float* w,
                                              std::int64_t depth, float* c, std::int64_t ldc,
                                              std::int64_t tail, const Pass& pass) {
  const __m256i last_lanes = avx2::first_lanes(tail);
  __m256 acc[R][V];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      acc[r][v] =
          pass.first ? _mm256_setzero_ps() : load(c + r * ldc + v * kLanes, v + 1 < V, last_lanes);
    }
  }
  for (std::int64_t kk = 0; kk < depth; ++kk) {
    __m256 weights[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) weights[v] = _mm256_load_ps(w + kk * kBlock + v * kLanes);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_broadcast_ss(a + r * lda + kk);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(weights[v], x, acc[r][v]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const bool whole = v + 1 < V;
      float* p = c + r * ldc + v * kLanes;
      __m256 out = acc[r][v];
      if (pass.last && pass.beta != 0.0f) {
        out = _mm256_fmadd_ps(_mm256_set1_ps(pass.beta), load(p, whole, last_lanes), out);
      }
      if (pass.last && pass.bias != nullptr) {
        out = _mm256_add_ps(out, load(pass.bias + v * kLanes, whole, last_lanes));
      }
      if (whole) {
        _mm256_storeu_ps(p, out);
      } else {
        _mm256_maskstore_ps(p, last_lanes, out);
      }
    }
  }
}

using Tile = void (*)(const float*, std::int64_t, const float*, std::int64_t, float*, std::int64_t,
                      std::int64_t, const Pass&);

template <int R, std::size_t... V>
constexpr std::array<Tile, sizeof...(V)> tiles_of_rows(std::index_sequence<V...>) {
  return {&tile<R, static_cast<int>(V) + 1>...};
}

// kTiles[R - 1][V - 1]: the tile of R rows and V vectors.
constexpr std::array<std::array<Tile, kVectors>, kRows> kTiles = {
    tiles_of_rows<1>(std::make_index_sequence<kVectors>()),
    tiles_of_rows<2>(std::make_index_sequence<kVectors>()),
    tiles_of_rows<3>(std::make_index_sequence<kVectors>()),
    tiles_of_rows<4>(std::make_index_sequence<kVectors>()),
};

// Columns [kBlock j, kBlock j + count) of every row of c: pass by pass over the depth, each
// pass over every tile of rows.
void block(const float* a, std::int64_t lda, const PackedWeights& packed, std::int64_t j,
           std::int64_t count, std::int64_t m, std::int64_t k, float beta, float* c,
           std::int64_t ldc, const float* bias) {
  const float* weights = packed.data + j * k * kBlock;
  const auto vectors = static_cast<int>((count + kLanes - 1) / kLanes);
  const std::int64_t tail = count - (vectors - 1) * kLanes;
  // With beta, c's old values are read at the end: the sums cannot wait in c.
  const std::int64_t per_pass = beta != 0.0f ? k : kDepthPerPass;
  for (std::int64_t from = 0; from < k; from += per_pass) {
    const std::int64_t depth = std::min(per_pass, k - from);
    const Pass pass{from == 0, from + depth == k, beta,
                    bias != nullptr ? bias + j * kBlock : nullptr};
    for (std::int64_t row = 0; row < m; row += kRows) {
      const auto rows = static_cast<int>(std::min<std::int64_t>(kRows, m - row));
      kTiles[static_cast<std::size_t>(rows - 1)][static_cast<std::size_t>(vectors - 1)](
          a + row * lda + from, lda, weights + from * kBlock, depth, c + row * ldc + j * kBlock,
          ldc, tail, pass);
    }
  }
}

}  // namespace
}  // namespace packed_product

bool packed_weight_product(const float* a, std::int64_t lda, const Bytes& b, bool b_transposed,
                           std::int64_t m, std::int64_t n, std::int64_t k, float beta, float* c,
                           std::int64_t ldc, const float* bias) {
  using packed_product::kBlock;
  if (m < 2 || n < 1 || k < 1 || m * n * k < packed_product::kMinMultiplyAdds ||
      b.owner() == nullptr || cpu_has_avx512f() || !cpu_has_avx2_fma()) {
    return false;
  }
  auto packed = weight_plans<packed_product::PackedWeights>().get(b, {b_transposed, n, k}, [&] {
    auto made = packed_product::pack(reinterpret_cast<const float*>(b.data()), b_transposed, n, k);
    // The file's copy is not read here again: its pages need not count in resident memory.
    release_mapped_pages(b);
    return made;
  });
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  const int threads = threads_for(m * n * k, packed_product::kMultiplyAddsPerThread);
  parallel_for(blocks, grain_for_pieces(blocks, threads),
               [&](std::int64_t begin, std::int64_t end) {
                 SubnormalOperandsAsZero subnormals;  // as every float32 product (gemm.h)
                 for (std::int64_t j = begin; j < end; ++j) {
                   const std::int64_t count = std::min(kBlock, n - j * kBlock);
                   packed_product::block(a, lda, *packed, j, count, m, k, beta, c, ldc, bias);
                 }
               });
  return true;
}

std::size_t packed_weight_plans() { return weight_plans<packed_product::PackedWeights>().size(); }

}  // namespace symbolite::ops
