#include "symbolite/ops/cpu/depthwise_interleaved.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "symbolite/ops/cpu/depthwise_conv.h"
#include "symbolite/ops/cpu/float_lanes.h"
#include "symbolite/ops/cpu/float_transpose.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

// Output channels are taken in blocks of one vector register's width (16 floats with
// AVX-512, 8 with AVX2, 4 otherwise), each lane one channel: the block's input planes are
// interleaved into a zero-padded (rows, cols, lanes) image, so every tap of every output
// pixel is one vector load and one FMA whatever the stride, dilation or plane size (MobileNets
// end at 7x7 planes, where loops along a plane's rows spend their time on edges). The output
// is computed interleaved the same way, two output rows at a time where they share input
// rows, and written back plane by plane. Interleaving is a lanes x lanes transpose of
// register tiles. Lanes never mix, so the result does not depend on how channels are blocked
// or on the thread count. With fewer blocks than threads, a block is also cut into bands of
// output rows, each packing only the input rows it reads.
//
// Every member is inlined into the per-instruction-set functions below, so no vector value
// crosses a call between code built for different instruction sets (what -Wpsabi warns of).
#pragma GCC diagnostic ignored "-Wpsabi"  // to the end of the file: GCC checks at instantiation
using simd::multiply_add;
using simd::Vec16;
using simd::Vec4;
using simd::Vec8;

template <typename Vec>
struct Block : simd::Lanes<Vec> {
  using simd::Lanes<Vec>::L;
  using simd::Lanes<Vec>::load;
  using simd::Lanes<Vec>::store;
  static constexpr int kPixels = 4;  // output pixels computed together, to hide FMA latency

  // [a0, b0, a1, b1, ...] from the first (Offset 0) or second (Offset L/2) halves of a and b.
  template <int Offset, int... K>
  [[gnu::always_inline]] static inline Vec interleave(Vec a, Vec b,
                                                      std::integer_sequence<int, K...>) {
    return __builtin_shufflevector(a, b, (K / 2 + Offset + (K % 2) * L)...);
  }

  // Transposes the L x L tile in `r` (row i = r[i]) in place: log2(L) rounds of interleaving
  // row j with row j + L/2 (the perfect-shuffle transpose).
  [[gnu::always_inline]] static inline void transpose(Vec* r) {
    constexpr auto lanes = std::make_integer_sequence<int, L>{};
    for (int round = 1; round < L; round *= 2) {
      Vec next[L];
      for (int j = 0; j < L / 2; ++j) {
        next[2 * j] = interleave<0>(r[j], r[j + L / 2], lanes);
        next[2 * j + 1] = interleave<L / 2>(r[j], r[j + L / 2], lanes);
      }
      for (int j = 0; j < L; ++j) r[j] = next[j];
    }
  }

  // Interleaves rows [py0, py1) of the planes `src[0..L)` (h x w each) zero-padded into
  // `padded`, a (py1 - py0, cols, L) image.
  [[gnu::always_inline]] static inline void pack(const float* const* src, const ConvGeometry& g,
                                                 std::int64_t cols, std::int64_t py0,
                                                 std::int64_t py1, float* padded) {
    const Vec zero = {};
    for (std::int64_t py = py0; py < py1; ++py) {
      float* row = padded + (py - py0) * cols * L;
      const std::int64_t y = py - g.ph;
      if (y < 0 || y >= g.h) {
        for (std::int64_t x = 0; x < cols; ++x) store(row + x * L, zero);
        continue;
      }
      for (std::int64_t x = 0; x < g.pw; ++x) store(row + x * L, zero);
      for (std::int64_t x = g.pw + g.w; x < cols; ++x) store(row + x * L, zero);
      float* interior = row + g.pw * L;
      std::int64_t x = 0;
      for (; x + L <= g.w; x += L) {
        Vec tile[L];
        for (int l = 0; l < L; ++l) tile[l] = load(src[l] + y * g.w + x);
        transpose(tile);
        for (int i = 0; i < L; ++i) store(interior + (x + i) * L, tile[i]);
      }
      // The row's last columns, four or more (all of a 14-wide row): a whole tile read on
      // while L elements remain in the plane (the next row's first columns come along and are
      // dropped), so only a plane's last rows take the scalar loop; fewer are cheaper moved
      // one by one than transposed.
      if (g.w - x >= 4 && (g.h - y) * g.w - x >= L) {
        Vec tile[L];
        for (int l = 0; l < L; ++l) tile[l] = load(src[l] + y * g.w + x);
        transpose(tile);
        for (std::int64_t i = 0; x + i < g.w; ++i) store(interior + (x + i) * L, tile[i]);
        x = g.w;
      }
      for (; x < g.w; ++x) {
        for (int l = 0; l < L; ++l) interior[x * L + l] = src[l][y * g.w + x];
      }
    }
  }

  // kPixels output pixels at unit stride and dilation along the row: the taps of one kernel
  // row read kPixels + KW - 1 consecutive input pixels, each loaded once and used by every
  // output pixel it is a tap of (the general loop loads it once per tap). Each accumulator
  // still adds its taps in kernel order: the same bits. Named accumulators: GCC 12 spills
  // an array of vectors to the stack.
  template <int KW>
  [[gnu::always_inline]] static inline void unit_stride_pixels(const float* base, const float* w,
                                                               Vec bias, std::int64_t kh,
                                                               std::int64_t row_step, float* dst) {
    static_assert(kPixels == 4);
    Vec a0 = bias, a1 = bias, a2 = bias, a3 = bias;
    for (std::int64_t ky = 0; ky < kh; ++ky) {
      const float* p = base + ky * row_step;
      const float* wk = w + ky * KW * L;
      Vec x0 = load(p), x1 = load(p + L), x2 = load(p + 2 * L);
      for (int kx = 0; kx < KW; ++kx) {
        const Vec x3 = load(p + (kx + 3) * L);
        const Vec wt = load(wk + kx * L);
        multiply_add(a0, wt, x0);
        multiply_add(a1, wt, x1);
        multiply_add(a2, wt, x2);
        multiply_add(a3, wt, x3);
        x0 = x1;
        x1 = x2;
        x2 = x3;
      }
    }
    store(dst, a0);
    store(dst + L, a1);
    store(dst + 2 * L, a2);
    store(dst + 3 * L, a3);
  }

  // Adds the tap whose weights are at `w` to four pixels' accumulators.
  [[gnu::always_inline]] static inline void add_tap(const float* w, Vec x0, Vec x1, Vec x2, Vec x3,
                                                    Vec& a0, Vec& a1, Vec& a2, Vec& a3) {
    const Vec wt = load(w);
    multiply_add(a0, wt, x0);
    multiply_add(a1, wt, x1);
    multiply_add(a2, wt, x2);
    multiply_add(a3, wt, x3);
  }

  // kPixels output pixels (`step` floats apart) of two output rows at once, the second
  // `shift` tap rows (row_step floats apart) below the first: tap row t of the pair is tap row
  // t of the first output row and tap row t - shift of the second, so each input vector is
  // loaded once for both, and eight accumulators hide the FMAs' latency (four chains of 9 or
  // 25 dependent FMAs did not). With KW known and unit steps along the row, the row's
  // kPixels + KW - 1 input pixels are each loaded once (as unit_stride_pixels does). Each
  // accumulator still adds its taps in kernel order: the same bits.
  template <int KW>
  [[gnu::always_inline]] static inline void pair_pixels(const float* base, const float* w, Vec bias,
                                                        std::int64_t kh, std::int64_t kw,
                                                        std::int64_t shift, std::int64_t row_step,
                                                        std::int64_t step, std::int64_t col_step,
                                                        float* dst0, float* dst1) {
    static_assert(kPixels == 4);
    Vec a0 = bias, a1 = bias, a2 = bias, a3 = bias;  // the first row's pixels
    Vec b0 = bias, b1 = bias, b2 = bias, b3 = bias;  // the second's
    for (std::int64_t t = 0; t < kh + shift; ++t) {
      const float* p = base + t * row_step;
      const bool first = t < kh;
      const bool second = t >= shift;
      const float* wa = w + t * kw * L;
      const float* wb = w + (second ? t - shift : 0) * kw * L;
      Vec s0 = {}, s1 = {}, s2 = {};  // unit steps: the window's first three inputs
      if constexpr (KW != 0) {
        s0 = load(p);
        s1 = load(p + L);
        s2 = load(p + 2 * L);
      }
      for (std::int64_t kx = 0; kx < (KW != 0 ? KW : kw); ++kx) {
        Vec x0, x1, x2, x3;
        if constexpr (KW != 0) {
          x0 = s0;
          x1 = s1;
          x2 = s2;
          x3 = load(p + (kx + 3) * L);
          s0 = x1;
          s1 = x2;
          s2 = x3;
        } else {
          const float* q = p + kx * col_step;
          x0 = load(q);
          x1 = load(q + step);
          x2 = load(q + 2 * step);
          x3 = load(q + 3 * step);
        }
        if (first) add_tap(wa + kx * L, x0, x1, x2, x3, a0, a1, a2, a3);
        if (second) add_tap(wb + kx * L, x0, x1, x2, x3, b0, b1, b2, b3);
      }
    }
    store(dst0, a0);
    store(dst0 + L, a1);
    store(dst0 + 2 * L, a2);
    store(dst0 + 3 * L, a3);
    store(dst1, b0);
    store(dst1 + L, b1);
    store(dst1 + 2 * L, b2);
    store(dst1 + 3 * L, b3);
  }

  // Output rows oy and oy + 1 of `compute`, when the second's tap rows are the first's
  // shifted by whole tap rows (the stride a multiple of the dilation).
  template <int KH, int KW>
  [[gnu::always_inline]] static inline void pair_rows(const float* padded, std::int64_t cols,
                                                      const float* w, Vec bias,
                                                      const ConvGeometry& g, std::int64_t oy,
                                                      float* result) {
    const std::int64_t kh = KH != 0 ? KH : g.kh;
    const std::int64_t kw = KW != 0 ? KW : g.kw;
    const std::int64_t step = g.sw * L;
    const std::int64_t row_step = g.dh * cols * L;
    const std::int64_t col_step = g.dw * L;
    const std::int64_t shift = g.sh / g.dh;
    const bool unit = step == L && col_step == L;
    float* dst0 = result + oy * g.ow * L;
    float* dst1 = dst0 + g.ow * L;
    const float* top = padded + oy * g.sh * cols * L;
    // The last pixels as the row's last kPixels, some computed again (to the same values).
    const std::int64_t last = g.ow - kPixels;
    for (std::int64_t ox = 0;; ox += kPixels) {
      const std::int64_t at = std::min(ox, last);
      if (unit) {
        pair_pixels<KW>(top + at * L, w, bias, kh, kw, shift, row_step, step, col_step,
                        dst0 + at * L, dst1 + at * L);
      } else {
        pair_pixels<0>(top + at * step, w, bias, kh, kw, shift, row_step, step, col_step,
                       dst0 + at * L, dst1 + at * L);
      }
      if (at == last) break;
    }
  }

  // result[(oy, ox)] = bias + sum over taps of w[tap] * padded[tap's pixel]. KH and KW are
  // the kernel size when known at compile time (fully unrolled), 0 otherwise.
  template <int KH, int KW>
  [[gnu::always_inline]] static inline void compute(const float* padded, std::int64_t cols,
                                                    const float* w, Vec bias, const ConvGeometry& g,
                                                    std::int64_t rows, float* result) {
    const std::int64_t kh = KH != 0 ? KH : g.kh;
    const std::int64_t kw = KW != 0 ? KW : g.kw;
    const std::int64_t step = g.sw * L;  // from one output pixel's taps to the next's
    const std::int64_t row_step = g.dh * cols * L;
    const std::int64_t col_step = g.dw * L;
    // Rows in pairs where the pair shares tap rows and a row holds kPixels pixels.
    const bool pairs = g.sh % g.dh == 0 && g.ow >= kPixels;
    std::int64_t oy = 0;
    if (pairs) {
      for (; oy + 1 < rows; oy += 2) pair_rows<KH, KW>(padded, cols, w, bias, g, oy, result);
    }
    for (; oy < rows; ++oy) {
      float* dst = result + oy * g.ow * L;
      const float* top = padded + oy * g.sh * cols * L;
      const bool unit = step == L && col_step == L;
      std::int64_t ox = 0;
      for (; ox + kPixels <= g.ow; ox += kPixels) {
        if constexpr (KW >= 5) {
          if (unit) {
            unit_stride_pixels<KW>(top + ox * L, w, bias, kh, row_step, dst + ox * L);
            continue;
          }
        }
        Vec a0 = bias, a1 = bias, a2 = bias, a3 = bias;
        const float* base = top + ox * step;
        for (std::int64_t ky = 0; ky < kh; ++ky) {
          for (std::int64_t kx = 0; kx < kw; ++kx) {
            const Vec wt = load(w + (ky * kw + kx) * L);
            const float* p = base + ky * row_step + kx * col_step;
            multiply_add(a0, wt, load(p));
            multiply_add(a1, wt, load(p + step));
            multiply_add(a2, wt, load(p + 2 * step));
            multiply_add(a3, wt, load(p + 3 * step));
          }
        }
        store(dst + ox * L, a0);
        store(dst + (ox + 1) * L, a1);
        store(dst + (ox + 2) * L, a2);
        store(dst + (ox + 3) * L, a3);
      }
      // A 5x5 row's last pixels as its last kPixels, some computed again (to the same
      // values): one pixel at a time is a chain of 25 dependent FMAs, and a 7-wide row has 3
      // such pixels in 7. (At 3x3 the chain is short: recomputing costs more.)
      if constexpr (KW >= 5) {
        if (unit && ox < g.ow && g.ow >= kPixels) {
          const std::int64_t last = g.ow - kPixels;
          unit_stride_pixels<KW>(top + last * L, w, bias, kh, row_step, dst + last * L);
          ox = g.ow;
        }
      }
      for (; ox < g.ow; ++ox) {
        Vec a = bias;
        const float* base = top + ox * step;
        for (std::int64_t ky = 0; ky < kh; ++ky) {
          for (std::int64_t kx = 0; kx < kw; ++kx) {
            multiply_add(a, load(w + (ky * kw + kx) * L),
                         load(base + ky * row_step + kx * col_step));
          }
        }
        store(dst + ox * L, a);
      }
    }
  }

  // Writes the first `lanes` channels of the interleaved `result` to their planes `dst`.
  [[gnu::always_inline]] static inline void unpack(const float* result, std::int64_t plane,
                                                   std::int64_t lanes, float* const* dst) {
    std::int64_t p = 0;
    for (; p + L <= plane; p += L) {
      Vec tile[L];
      for (int i = 0; i < L; ++i) tile[i] = load(result + (p + i) * L);
      transpose(tile);
      for (std::int64_t l = 0; l < lanes; ++l) store(dst[l] + p, tile[l]);
    }
    for (; p < plane; ++p) {
      for (std::int64_t l = 0; l < lanes; ++l) dst[l][p] = result[p * L + l];
    }
  }

  // `fused` on the interleaved `result` (`values` floats) of channels [oc0, oc0 + lanes):
  // each lane's own scale and shift, one call for the whole block however small its planes.
  [[gnu::always_inline]] static inline void finish(const Epilogue& fused, std::int64_t oc0,
                                                   std::int64_t lanes, float* result,
                                                   std::int64_t values) {
    const bool affine = !fused.scale.empty();
    float scale[L];
    float shift[L];
    for (std::int64_t l = 0; l < L; ++l) {
      const auto c = static_cast<std::size_t>(oc0 + std::min<std::int64_t>(l, lanes - 1));
      scale[l] = affine ? fused.scale[c] : 1.0f;
      shift[l] = affine ? fused.shift[c] : 0.0f;
    }
    vec::epilogue_interleaved_f32(result, values, affine ? scale : nullptr,
                                  affine ? shift : nullptr,
                                  fused.activation ? &*fused.activation : nullptr);
  }

  // Writes output channels [oc0, oc0 + lanes) of image `n`, output rows [oy0, oy1), then
  // `fused` when given. `out` is written through the plane pointers taken from it (clang-tidy
  // does not follow them).
  [[gnu::always_inline]] static inline void run(
      const float* in, const float* weight, const float* bias,
      float* out,  // NOLINT(readability-non-const-parameter)
      const ConvGeometry& g, std::int64_t n, std::int64_t oc0, std::int64_t lanes, std::int64_t oy0,
      std::int64_t oy1, const Epilogue* fused, std::vector<float>& padded,
      std::vector<float>& result) {
    const std::int64_t mult = g.o / g.c;
    const std::int64_t taps = g.kh * g.kw;
    // The padded input rows those output rows read.
    const std::int64_t py0 = oy0 * g.sh;
    const std::int64_t py1 = (oy1 - 1) * g.sh + (g.kh - 1) * g.dh + 1;
    const std::int64_t cols = g.w + 2 * g.pw;
    const std::int64_t plane = g.oh * g.ow;
    const std::int64_t band = (oy1 - oy0) * g.ow;
    // Lanes past the last channel (in the last block only) repeat its input and are dropped.
    const float* src[L];
    float* dst[L];
    // Output channel oc reads input channel oc / mult, counted up lane by lane: a division a
    // lane took 40-90 cycles on Skylake-SP and Cascade Lake, as much as a 7x7 block's taps.
    std::int64_t ic = oc0 / mult, next_ic = (ic + 1) * mult;
    for (std::int64_t l = 0; l < L; ++l) {
      const std::int64_t oc = oc0 + std::min<std::int64_t>(l, lanes - 1);
      if (oc == next_ic) {
        ++ic;
        next_ic += mult;
      }
      src[l] = in + (n * g.c + ic) * g.h * g.w;
      dst[l] = out + (n * g.o + oc) * plane + oy0 * g.ow;
    }
    float* const padded_rows = simd::line_aligned(padded, (py1 - py0) * cols * L);
    pack(src, g, cols, py0, py1, padded_rows);

    // Weights and bias interleaved the same way: one vector per tap (the weights a lanes x
    // taps transpose; at 7x7 planes, element by element it took as long as the products).
    thread_local std::vector<float> weights;
    float* const w = simd::line_aligned(weights, taps * L);
    if (lanes < L) std::fill_n(w, taps * L, 0.0f);
    transpose_f32(weight + oc0 * taps, taps, w, L, lanes, taps);
    Vec b = {};
    if (bias != nullptr) {
      for (std::int64_t l = 0; l < lanes; ++l) b[l] = bias[oc0 + l];
    }

    float* const out_pixels = simd::line_aligned(result, band * L);
    if (g.kh == 3 && g.kw == 3) {
      compute<3, 3>(padded_rows, cols, w, b, g, oy1 - oy0, out_pixels);
    } else if (g.kh == 5 && g.kw == 5) {
      compute<5, 5>(padded_rows, cols, w, b, g, oy1 - oy0, out_pixels);
    } else {
      compute<0, 0>(padded_rows, cols, w, b, g, oy1 - oy0, out_pixels);
    }
    if (fused != nullptr) finish(*fused, oc0, lanes, out_pixels, band * L);
    unpack(out_pixels, band, lanes, dst);
  }
};

using BlockFn = void (*)(const float*, const float*, const float*, float*, const ConvGeometry&,
                         std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                         const Epilogue*, std::vector<float>&, std::vector<float>&);

// One copy of the block per instruction set, picked at run time (FMAs where the target has
// them: simd::multiply_add).
__attribute__((target("avx512f"))) void block_avx512(
    const float* in, const float* weight, const float* bias, float* out, const ConvGeometry& g,
    std::int64_t n, std::int64_t oc0, std::int64_t lanes, std::int64_t oy0, std::int64_t oy1,
    const Epilogue* fused, std::vector<float>& padded, std::vector<float>& result) {
  Block<Vec16>::run(in, weight, bias, out, g, n, oc0, lanes, oy0, oy1, fused, padded, result);
}

__attribute__((target("avx2,fma"))) void block_avx2(
    const float* in, const float* weight, const float* bias, float* out, const ConvGeometry& g,
    std::int64_t n, std::int64_t oc0, std::int64_t lanes, std::int64_t oy0, std::int64_t oy1,
    const Epilogue* fused, std::vector<float>& padded, std::vector<float>& result) {
  Block<Vec8>::run(in, weight, bias, out, g, n, oc0, lanes, oy0, oy1, fused, padded, result);
}

void block_baseline(const float* in, const float* weight, const float* bias, float* out,
                    const ConvGeometry& g, std::int64_t n, std::int64_t oc0, std::int64_t lanes,
                    std::int64_t oy0, std::int64_t oy1, const Epilogue* fused,
                    std::vector<float>& padded, std::vector<float>& result) {
  Block<Vec4>::run(in, weight, bias, out, g, n, oc0, lanes, oy0, oy1, fused, padded, result);
}

struct LaneKernel {
  BlockFn fn;
  std::int64_t lanes;
};

// The widest version this CPU runs, chosen once.
LaneKernel best_kernel() {
  static const LaneKernel best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return LaneKernel{&block_avx512, 16};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      return LaneKernel{&block_avx2, 8};
    }
    return LaneKernel{&block_baseline, 4};
  }();
  return best;
}

}  // namespace

void depthwise_conv2d_interleaved(const float* in, const float* weight, const float* bias,
                                  float* out, const ConvGeometry& g, const Epilogue* fused) {
  const LaneKernel kernel = best_kernel();
  const std::int64_t blocks = (g.o + kernel.lanes - 1) / kernel.lanes;
  // The epilogue on the interleaved result where vector_math's vectors are the block's (one
  // call a block; plane by plane, a 7x7 plane is a call for three vectors and a tail).
  const bool in_lanes = fused != nullptr && kernel.lanes == vec::lanes_f32();
  // Fewer blocks of channels than threads (MobileNetV3's 16 channels at 112x112): each block
  // in bands of output rows too, each band packing just the input rows it reads.
  const std::int64_t threads = intra_op_threads();
  const std::int64_t bands =
      threads == 1 ? 1
                   : std::clamp<std::int64_t>((2 * threads + g.n * blocks - 1) / (g.n * blocks), 1,
                                              std::max<std::int64_t>(1, g.oh / 8));
  const std::int64_t work_per_unit =
      std::max<std::int64_t>(1, g.oh * g.ow * g.kh * g.kw * kernel.lanes / bands);
  parallel_for(g.n * blocks * bands,
               std::max<std::int64_t>(1, (std::int64_t{1} << 16) / work_per_unit),
               [&](std::int64_t first, std::int64_t last) {
                 // Scratch kept per thread: freshly allocated, these buffers (up to a few
                 // MiB) come from mmap and page-fault on every call.
                 thread_local std::vector<float> padded;
                 thread_local std::vector<float> result;
                 for (std::int64_t unit = first; unit < last; ++unit) {
                   const std::int64_t index = unit / bands;
                   const std::int64_t band = unit % bands;
                   const std::int64_t n = index / blocks;
                   const std::int64_t oc0 = (index % blocks) * kernel.lanes;
                   const std::int64_t lanes = std::min(kernel.lanes, g.o - oc0);
                   const std::int64_t oy0 = g.oh * band / bands;
                   const std::int64_t oy1 = g.oh * (band + 1) / bands;
                   kernel.fn(in, weight, bias, out, g, n, oc0, lanes, oy0, oy1,
                             in_lanes ? fused : nullptr, padded, result);
                   if (in_lanes) continue;
                   for (std::int64_t oc = oc0; oc < oc0 + lanes; ++oc) {
                     finish_plane(fused, out + (n * g.o + oc) * g.oh * g.ow + oy0 * g.ow,
                                  (oy1 - oy0) * g.ow, oc);
                   }
                 }
               });
}

}  // namespace symbolite::ops::nn
