#include "symbolite/ops/cpu/stem_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "symbolite/ops/cpu/float_lanes.h"
#include "symbolite/ops/cpu/phase_rows.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

// A band of output rows at a time: the input rows it reads are packed into a ring of phase
// rows per input channel (phase_rows.h) a few rows ahead of use; for each output row, a table
// gives where each of the k = C * KH * KW taps reads, and each tile of kChannels output
// channels by kVectors vectors of pixels is k steps of kVectors loads and kChannels x
// kVectors FMAs, the weights broadcast from a copy laid out tap by tap. The last block of
// channels is computed whole on zero weights and only its real channels stored.
//
// Every member is inlined into the per-instruction-set functions below (float_lanes.h).
#pragma GCC diagnostic ignored "-Wpsabi"  // to the end of the file: GCC checks at instantiation
using simd::multiply_add;
using simd::Vec16;
using simd::Vec4;
using simd::Vec8;

constexpr std::int64_t kMaxTaps = 128;
// More output channels read each packed row once per block of kChannels. At 64 channels
// (SqueezeNet 1.1's stem, VGG's first convolution) this still beat im2col + GEMM on the Zen 4
// machine, 0.80-0.90x its time at one thread and 0.70-0.83x at two (docs/PERFORMANCE.md;
// on an earlier machine im2col + GEMM had won). 1x1 kernels are products as they stand.
constexpr std::int64_t kMaxOutputs = 64;

// Stem<Vec16>::tile in AVX-512 intrinsics. In GCC 12's vector extensions its weight
// broadcasts compiled badly: the SLP vectorizer merges a tap's 8 weight loads into one, and
// each broadcast then became a 256-bit broadcast and an insert — a shuffle on the port the
// FMAs share, 8 a tap (the kernel ran 1.3x slower). Arguments as Stem::tile's.
template <int kChannels, int V>
__attribute__((target("avx512f"))) inline void tile_avx512(const float* const* taps, std::int64_t k,
                                                           const float* w, std::int64_t ox,
                                                           std::int64_t count, std::int64_t tail,
                                                           float* dst, std::int64_t plane) {
  __m512 acc[kChannels][V];
#pragma GCC unroll 8
  for (auto& channel : acc) {
#pragma GCC unroll 4
    for (__m512& a : channel) a = _mm512_setzero_ps();
  }
  for (std::int64_t t = 0; t < k; ++t) {
    const float* p = taps[t] + ox;
    __m512 x[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) x[v] = _mm512_loadu_ps(p + v * 16);
    const float* wt = w + t * kChannels;
#pragma GCC unroll 8
    for (int i = 0; i < kChannels; ++i) {
      const __m512 b = _mm512_set1_ps(wt[i]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[i][v] = _mm512_fmadd_ps(b, x[v], acc[i][v]);
    }
  }
  // Channel by channel at indices known when compiling (unrolled, `count` a test on each):
  // a loop to the run-time `count` indexed the accumulators at run time, which kept all of
  // them in memory, stored, zeroed and reloaded around every tile.
  const auto last = static_cast<__mmask16>((1u << tail) - 1);
#pragma GCC unroll 8
  for (int i = 0; i < kChannels; ++i) {
    if (i >= count) break;
    float* row = dst + i * plane + ox;
#pragma GCC unroll 4
    for (int v = 0; v + 1 < V; ++v) _mm512_storeu_ps(row + v * 16, acc[i][v]);
    _mm512_mask_storeu_ps(row + (V - 1) * 16, last, acc[i][V - 1]);
  }
}

template <typename Vec>
struct Stem : simd::PhaseRows<Vec> {
  using Rows = simd::PhaseRows<Vec>;
  using Rows::L;
  using Rows::load;
  using Rows::splat;
  using Rows::store;
  using Layout = typename Rows::Layout;
  // A tile of accumulators in registers: 24 of AVX-512's 32, 12 of AVX2's and SSE's 16 (with
  // a tap's three pixel vectors and a weight broadcast, all 16). AVX2's was 4 x 2: a broadcast
  // for every two FMAs, 1.1-1.4x slower on the stems of a Zen 3 EPYC (bench/conv_bench.cpp).
  static constexpr int kChannels = L == 16 ? 8 : 4;
  static constexpr int kVectors = 3;

  // Output channels [o0, o0 + count) at pixels [ox, ox + V * L) of the row `dst` (channel
  // o0's), planes `plane` floats apart; the last vector keeps `tail` pixels (1 to L).
  template <int V>
  [[gnu::always_inline]] static inline void tile(const float* const* taps, std::int64_t k,
                                                 const float* w, std::int64_t ox,
                                                 std::int64_t count, std::int64_t tail, float* dst,
                                                 std::int64_t plane) {
    if constexpr (L == 16) {
      tile_avx512<kChannels, V>(taps, k, w, ox, count, tail, dst, plane);
    } else {
      tile_vectors<V>(taps, k, w, ox, count, tail, dst, plane);
    }
  }

  // `tile` in GCC's vector extensions (AVX2, SSE).
  template <int V>
  [[gnu::always_inline]] static inline void tile_vectors(const float* const* taps, std::int64_t k,
                                                         const float* w, std::int64_t ox,
                                                         std::int64_t count, std::int64_t tail,
                                                         float* dst, std::int64_t plane) {
    Vec acc[kChannels][V];
#pragma GCC unroll 8
    for (int i = 0; i < kChannels; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[i][v] = Vec{};
    }
    for (std::int64_t t = 0; t < k; ++t) {
      const float* p = taps[t] + ox;
      Vec x[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) x[v] = load(p + v * L);
      const float* wt = w + t * kChannels;
#pragma GCC unroll 8
      for (int i = 0; i < kChannels; ++i) {
        const Vec b = splat(wt[i]);  // one broadcast load
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) multiply_add(acc[i][v], b, x[v]);
      }
    }
    // Whole vectors stored as they are; only a row's partial last vector goes through memcpy.
    if (tail == L && count == kChannels) {
#pragma GCC unroll 8
      for (int i = 0; i < kChannels; ++i) {
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) store(dst + i * plane + ox + v * L, acc[i][v]);
      }
      return;
    }
    for (std::int64_t i = 0; i < count; ++i) {
      float* row = dst + i * plane + ox;
      for (int v = 0; v + 1 < V; ++v) store(row + v * L, acc[i][v]);
      __builtin_memcpy(row + (V - 1) * L, &acc[i][V - 1],
                       static_cast<std::size_t>(tail) * sizeof(float));
    }
  }

  // Output row `oy` of image `image` (all channels), `taps` set for it.
  [[gnu::always_inline]] static inline void row(const float* const* taps, const float* packed,
                                                const ConvGeometry& g, std::int64_t oy,
                                                float* image) {
    const std::int64_t k = g.cg * g.kh * g.kw;
    const std::int64_t plane = g.oh * g.ow;
    // The row's vectors in chunks of at most kVectors, as even as can be (7 as 3, 2, 2 rather
    // than 3, 3, 1: a one-vector tile does a broadcast per FMA).
    const std::int64_t vectors = (g.ow + L - 1) / L;
    const std::int64_t chunks = (vectors + kVectors - 1) / kVectors;
    const std::int64_t tail = g.ow - (vectors - 1) * L;  // pixels in the last vector
    for (std::int64_t o0 = 0; o0 < g.o; o0 += kChannels) {
      const float* w = packed + o0 / kChannels * k * kChannels;
      const std::int64_t count = std::min<std::int64_t>(kChannels, g.o - o0);
      float* dst = image + o0 * plane + oy * g.ow;
      // The first `longer` chunks take one vector more (no division per chunk: see band).
      const std::int64_t shorter = vectors / chunks, longer = vectors % chunks;
      std::int64_t v1 = 0;
      for (std::int64_t j = 0; j < chunks; ++j) {
        const std::int64_t v0 = v1;
        v1 = v0 + shorter + (j < longer ? 1 : 0);
        const std::int64_t last = v1 == vectors ? tail : L;
        switch (v1 - v0) {
          case 1:
            tile<1>(taps, k, w, v0 * L, count, last, dst, plane);
            break;
          case 2:
            tile<2>(taps, k, w, v0 * L, count, last, dst, plane);
            break;
          default:
            if constexpr (kVectors >= 3) tile<3>(taps, k, w, v0 * L, count, last, dst, plane);
            break;
        }
      }
    }
  }

  // Output rows [oy0, oy1) of image n.
  [[gnu::always_inline]] static inline void band(const float* in, const float* packed, float* out,
                                                 const ConvGeometry& g, std::int64_t n,
                                                 std::int64_t oy0, std::int64_t oy1,
                                                 std::vector<float>& scratch) {
    const std::int64_t s = g.sw;
    const Layout at(g);
    const std::int64_t row_floats = at.row_floats(g);
    // Rows are packed `ahead` output rows before they are read (depthwise_direct.cpp: a load
    // straddling two stores still in flight waits for both).
    const std::int64_t ahead = 2 * s;
    const std::int64_t ring = g.kh + ahead;
    float* base = simd::line_aligned(scratch, (g.c * ring + 1) * row_floats);
    float* zeros = base + g.c * ring * row_floats;
    for (std::int64_t r = 0; r < g.c * ring; ++r) {
      Rows::zero_padding(g, at, base + r * row_floats);  // padding columns stay zero
    }
    std::fill_n(zeros, row_floats, 0.0f);
    const float* image = in + n * g.c * g.h * g.w;
    float* result = out + n * g.o * g.oh * g.ow;
    const float* taps[kMaxTaps];
    // Where tap column kx reads in a packed row: its phase row, then its column there. Worked
    // out once: a division by the run-time stride in the per-row loop cost 40-90 cycles a tap
    // on Skylake-SP and Cascade Lake.
    std::int64_t column[kMaxTaps];
    for (std::int64_t kx = 0; kx < g.kw; ++kx) {
      column[kx] = at.shift + kx % s * at.stride + kx / s;
    }
    const std::int64_t end = (oy1 - 1) * s + g.kh;  // past the last padded row read
    std::int64_t next = oy0 * s;                    // the next padded row to pack
    for (std::int64_t oy = oy0; oy < oy1; ++oy) {
      const std::int64_t top = oy * s;
      for (; next < std::min(end, top + g.kh + ahead); ++next) {
        const std::int64_t y = next - g.ph;
        if (y < 0 || y >= g.h) continue;
        float* slot = base + next % ring * row_floats;
        for (std::int64_t c = 0; c < g.c; ++c) {
          Rows::pack(image + c * g.h * g.w, y, g, at, slot + c * ring * row_floats);
        }
      }
      std::int64_t t = 0;
      const std::int64_t first_slot = top % ring;
      for (std::int64_t c = 0; c < g.c; ++c) {
        std::int64_t slot = first_slot;  // (top + ky) % ring
        for (std::int64_t ky = 0; ky < g.kh; ++ky, slot = slot + 1 == ring ? 0 : slot + 1) {
          const std::int64_t y = top + ky - g.ph;
          const float* row = y >= 0 && y < g.h ? base + (c * ring + slot) * row_floats : zeros;
          for (std::int64_t kx = 0; kx < g.kw; ++kx) taps[t++] = row + column[kx];
        }
      }
      row(taps, packed, g, oy, result);
    }
  }
};

using StemBandFn = void (*)(const float*, const float*, float*, const ConvGeometry&, std::int64_t,
                            std::int64_t, std::int64_t, std::vector<float>&);

// One copy per instruction set, picked at run time (FMAs where the target has them:
// simd::multiply_add).
__attribute__((target("avx512f"))) void band_avx512(const float* in, const float* packed,
                                                    float* out, const ConvGeometry& g,
                                                    std::int64_t n, std::int64_t oy0,
                                                    std::int64_t oy1, std::vector<float>& scratch) {
  Stem<Vec16>::band(in, packed, out, g, n, oy0, oy1, scratch);
}

__attribute__((target("avx2,fma"))) void band_avx2(const float* in, const float* packed, float* out,
                                                   const ConvGeometry& g, std::int64_t n,
                                                   std::int64_t oy0, std::int64_t oy1,
                                                   std::vector<float>& scratch) {
  Stem<Vec8>::band(in, packed, out, g, n, oy0, oy1, scratch);
}

void band_baseline(const float* in, const float* packed, float* out, const ConvGeometry& g,
                   std::int64_t n, std::int64_t oy0, std::int64_t oy1,
                   std::vector<float>& scratch) {
  Stem<Vec4>::band(in, packed, out, g, n, oy0, oy1, scratch);
}

struct Best {
  StemBandFn band;
  int channels;  // the tile's output channels, for the weights' layout
};

// The widest version this CPU runs, chosen once.
Best best() {
  static const Best chosen = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Best{&band_avx512, Stem<Vec16>::kChannels};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      return Best{&band_avx2, Stem<Vec8>::kChannels};
    }
    return Best{&band_baseline, Stem<Vec4>::kChannels};
  }();
  return chosen;
}

}  // namespace

bool stem_conv2d_shape(const ConvGeometry& g) {
  return g.groups == 1 && g.cg * g.kh * g.kw <= kMaxTaps && g.kh * g.kw > 1 && g.o <= kMaxOutputs &&
         g.sh == g.sw && (g.sw == 1 || g.sw == 2) && g.dh == 1 && g.dw == 1;
}

void stem_conv2d(const float* in, const float* weight, float* out, const ConvGeometry& g,
                 const ChannelsDone& done) {
  if (g.n == 0 || g.o == 0 || g.oh <= 0 || g.ow <= 0) return;  // nothing to write
  const Best kernel = best();
  const std::int64_t k = g.cg * g.kh * g.kw;
  // The weights tap by tap within blocks of `channels` output channels, zero past the last.
  const std::int64_t blocks = (g.o + kernel.channels - 1) / kernel.channels;
  std::vector<float> packed(static_cast<std::size_t>(blocks * k * kernel.channels), 0.0f);
  for (std::int64_t o = 0; o < g.o; ++o) {
    const std::int64_t block = o / kernel.channels, lane = o % kernel.channels;
    for (std::int64_t t = 0; t < k; ++t) {
      packed[static_cast<std::size_t>((block * k + t) * kernel.channels + lane)] =
          weight[o * k + t];
    }
  }
  // Bands of output rows: a few per thread, so a late worker's share is taken by the others,
  // each enough rows that packing the rows bands share costs little.
  const std::int64_t threads = intra_op_threads();
  const std::int64_t per_image =
      std::clamp<std::int64_t>(4 * threads / g.n, 1, std::max<std::int64_t>(1, g.oh / 4));
  const std::int64_t work = std::max<std::int64_t>(1, g.o * k * g.oh / per_image * g.ow);
  parallel_for(g.n * per_image, std::max<std::int64_t>(1, (std::int64_t{1} << 16) / work),
               [&](std::int64_t first, std::int64_t last) {
                 // Kept per thread: a fresh buffer page-faults on every call.
                 thread_local std::vector<float> scratch;
                 for (std::int64_t unit = first; unit < last; ++unit) {
                   const std::int64_t n = unit / per_image, part = unit % per_image;
                   const std::int64_t oy0 = g.oh * part / per_image,
                                      oy1 = g.oh * (part + 1) / per_image;
                   if (oy0 == oy1) continue;
                   kernel.band(in, packed.data(), out, g, n, oy0, oy1, scratch);
                   done(n, 0, g.o, oy0, oy1 - oy0);
                 }
               });
}

}  // namespace symbolite::ops::nn
