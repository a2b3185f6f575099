#include "symbolite/ops/cpu/pointwise_channel_lanes.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/ops/cpu/float_lanes.h"
#include "symbolite/ops/cpu/float_transpose.h"
#include "symbolite/ops/cpu/onednn_matmul.h"
#include "symbolite/ops/cpu/weight_plan_cache.h"
#include "symbolite/support/float_control.h"
#include "symbolite/support/mapped_file.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
// Named, so that a unity build's batch of files shares none of these names (kLanes, tile).
namespace channel_lanes {
namespace {

constexpr std::int64_t kLanes = 16;
// Output channels a tile: four vectors, with seven pixels 28 accumulators of the 32 registers.
constexpr std::int64_t kBlock = 64;
constexpr int kTilePixels = 7;
constexpr int kTileVectors = kBlock / kLanes;
// Products smaller than this stay on the GEMM paths (packing is not worth it); and the
// multiply-adds a thread must have before a product is split.
constexpr std::int64_t kMinMultiplyAdds = std::int64_t{1} << 18;
constexpr std::int64_t kMultiplyAddsPerThread = std::int64_t{1} << 20;
// Inputs per output a product over rows longer than oneDNN's matmul takes (kShortRows) needs
// to come here.
constexpr std::int64_t kMinDepthOverLongRows = 64;

// The weights, A's rows packed by blocks of 64 output channels: for block j, k rows of 64
// floats, row kk holding A[64j .. 64j + 63][kk] (zero past row m), on a cache line each.
struct PackedWeights {
  std::vector<float> storage;
  const float* data = nullptr;
};

std::shared_ptr<const PackedWeights> pack(const float* a, std::int64_t m, std::int64_t k) {
  auto packed = std::make_shared<PackedWeights>();
  const std::int64_t blocks = (m + kBlock - 1) / kBlock;
  // Fresh storage, so its lanes past row m are the zeros the vector was grown with.
  float* out = simd::line_aligned(packed->storage, blocks * k * kBlock);
  for (std::int64_t o = 0; o < m; ++o) {
    float* column = out + o / kBlock * k * kBlock + o % kBlock;
    for (std::int64_t kk = 0; kk < k; ++kk) column[kk * kBlock] = a[o * k + kk];
  }
  packed->data = out;
  return packed;
}

// P pixels (columns p of b) by V vectors of channels: out[p * kBlock + lane] = the sum over kk
// of w[kk * kBlock + lane] * b[kk * ldb + p], added in kk order from zero. With `next` (the
// next block's weights), each step also prefetches that block's row kk into L2.
template <int P, int V>
__attribute__((target("avx512f"))) void tile(const float* w, const float* b, std::int64_t ldb,
                                             std::int64_t k, float* out, const float* next) {
  __m512 acc[P][V];
  for (int p = 0; p < P; ++p) {
    for (int v = 0; v < V; ++v) acc[p][v] = _mm512_setzero_ps();
  }
  for (std::int64_t kk = 0; kk < k; ++kk) {
    if (next != nullptr) {
      for (int v = 0; v < kTileVectors; ++v) {
        _mm_prefetch(reinterpret_cast<const char*>(next + kk * kBlock + v * kLanes), _MM_HINT_T1);
      }
    }
    __m512 weights[V];
    for (int v = 0; v < V; ++v) weights[v] = _mm512_load_ps(w + kk * kBlock + v * kLanes);
    const float* x = b + kk * ldb;
    for (int p = 0; p < P; ++p) {
      const __m512 pixel = _mm512_set1_ps(x[p]);
      for (int v = 0; v < V; ++v) acc[p][v] = _mm512_fmadd_ps(weights[v], pixel, acc[p][v]);
    }
  }
  for (int p = 0; p < P; ++p) {
    for (int v = 0; v < V; ++v) _mm512_store_ps(out + p * kBlock + v * kLanes, acc[p][v]);
  }
}

// The share of the lanes of the vectors `count` elements occupy that they fill.
double lane_use(std::int64_t count) {
  const std::int64_t occupied = (count + kLanes - 1) / kLanes * kLanes;
  return static_cast<double>(count) / static_cast<double>(occupied);
}

using Tile = void (*)(const float*, const float*, std::int64_t, std::int64_t, float*, const float*);

template <int V, std::size_t... P>
constexpr std::array<Tile, kTilePixels> tiles_of_width(std::index_sequence<P...>) {
  return {&tile<static_cast<int>(P) + 1, V>...};
}

// kTiles[P - 1][V - 1]: the tile of P pixels and V vectors.
constexpr std::array<std::array<Tile, kTilePixels>, kTileVectors> kTiles = {
    tiles_of_width<1>(std::make_index_sequence<kTilePixels>()),
    tiles_of_width<2>(std::make_index_sequence<kTilePixels>()),
    tiles_of_width<3>(std::make_index_sequence<kTilePixels>()),
    tiles_of_width<4>(std::make_index_sequence<kTilePixels>()),
};

// Rows [first, first + count) of c, all in one block of 64 (first % 64 a multiple of 16):
// every pixel's tile into `scratch` (n rows of 64, a row per pixel), then transposed into c.
// The packed weights are read once a run, mostly from memory, and the first tile waits for
// them: the second tile (the first if it is the only one) prefetches the next block's.
void rows(const PackedWeights& packed, std::int64_t m, const float* b, std::int64_t ldb,
          std::int64_t n, std::int64_t k, std::int64_t first, std::int64_t count, float* scratch,
          float* c, std::int64_t ldc) {
  const std::int64_t block = first / kBlock;
  const float* w = packed.data + block * k * kBlock + first % kBlock;
  const float* next = (block + 1) * kBlock < m ? packed.data + (block + 1) * k * kBlock : nullptr;
  const std::int64_t prefetching = n > kTilePixels ? kTilePixels : 0;
  const auto vectors = static_cast<int>((count + kLanes - 1) / kLanes);
  for (std::int64_t p = 0; p < n; p += kTilePixels) {
    const auto pixels = static_cast<int>(std::min<std::int64_t>(kTilePixels, n - p));
    kTiles[static_cast<std::size_t>(vectors - 1)][static_cast<std::size_t>(pixels - 1)](
        w, b + p, ldb, k, scratch + p * kBlock, p == prefetching ? next : nullptr);
  }
  transpose_f32(scratch, kBlock, c + first * ldc, ldc, n, count);
}

// What pointwise_channel_lanes does (pointwise_channel_lanes.h).
bool product(const Bytes& a, const float* b, std::int64_t ldb, std::int64_t m, std::int64_t n,
             std::int64_t k, float* c, std::int64_t ldc,
             const std::function<void(std::int64_t, std::int64_t)>& done) {
  if (n < 1 || n > kChannelLanesMaxRows || m < 1 || k < 1 || m * n * k < kMinMultiplyAdds ||
      a.owner() == nullptr || !cpu_has_avx512f()) {
    return false;
  }
  // Channels in lanes must fill them no worse than pixels would (40 channels fill 83 % of
  // three vectors, 196 pixels 94 % of thirteen). Past 64 pixels the alternatives (oneDNN's
  // convolution primitive, sgemm) won on 14x14 images with fewer than kMinDepthOverLongRows
  // inputs per output: each tile's 28 accumulators are zeroed and stored for a short sum
  // (docs/PERFORMANCE.md).
  if (lane_use(m) < lane_use(n) || (n > kShortRows && k < kMinDepthOverLongRows)) {
    return false;
  }
  auto packed = weight_plans<PackedWeights>().get(a, {m, k}, [&] {
    auto made = pack(reinterpret_cast<const float*>(a.data()), m, k);
    // The file's copy is not read here again: its pages need not count in resident memory.
    release_mapped_pages(a);
    return made;
  });
  // Threads take runs of 16 channels; each run goes in pieces that stay in one block of 64.
  const std::int64_t groups = (m + kLanes - 1) / kLanes;
  const int threads = threads_for(m * n * k, kMultiplyAddsPerThread);
  parallel_for(groups, grain_for_pieces(groups, threads),
               [&](std::int64_t begin, std::int64_t end) {
                 thread_local std::vector<float> scratch;
                 float* tiles = simd::line_aligned(scratch, n * kBlock);
                 const std::int64_t last = std::min(m, end * kLanes);
                 for (std::int64_t first = begin * kLanes; first < last;) {
                   const std::int64_t count = std::min(last, (first / kBlock + 1) * kBlock) - first;
                   {
                     // As every float32 product (gemm.h); `done` (an epilogue) keeps the
                     // caller's control, as it has unfused.
                     SubnormalOperandsAsZero subnormals;
                     rows(*packed, m, b, ldb, n, k, first, count, tiles, c, ldc);
                   }
                   done(first, count);
                   first += count;
                 }
               });
  return true;
}

}  // namespace
}  // namespace channel_lanes

bool pointwise_channel_lanes(const Bytes& a, const float* b, std::int64_t ldb, std::int64_t m,
                             std::int64_t n, std::int64_t k, float* c, std::int64_t ldc,
                             const std::function<void(std::int64_t, std::int64_t)>& done) {
  return channel_lanes::product(a, b, ldb, m, n, k, c, ldc, done);
}

std::size_t pointwise_channel_lanes_plans() {
  return weight_plans<channel_lanes::PackedWeights>().size();
}

}  // namespace symbolite::ops
