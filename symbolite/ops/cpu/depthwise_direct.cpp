#include "symbolite/ops/cpu/depthwise_direct.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "symbolite/ops/cpu/depthwise_conv.h"
#include "symbolite/ops/cpu/float_lanes.h"
#include "symbolite/ops/cpu/phase_rows.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

// Each output plane is computed two rows at a time, a vector of consecutive output pixels per
// load, from input rows packed zero-padded and split into stride phases (phase_rows.h): every
// tap is one unaligned vector load and one FMA, with no shuffles (the interleaved kernel
// transposes every input and output element). Padding rows above and below the image all
// point at one row of zeros. Each pixel's sum starts from the bias and adds its taps in kernel
// order, as the other depthwise kernels do: the same bits, whatever the blocking or thread
// count.
//
// Every member is inlined into the per-instruction-set functions below, so no vector value
// crosses a call between code built for different instruction sets (what -Wpsabi warns of).
#pragma GCC diagnostic ignored "-Wpsabi"  // to the end of the file: GCC checks at instantiation
using simd::multiply_add;
using simd::Vec16;
using simd::Vec4;
using simd::Vec8;

template <typename Vec>
struct Plane : simd::PhaseRows<Vec> {
  using Rows = simd::PhaseRows<Vec>;
  using Rows::L;
  using Rows::load;
  using Rows::splat;
  using Rows::store;
  using Layout = typename Rows::Layout;
  static constexpr int kVectors = 4;  // output vectors computed together, to hide FMA latency

  // `count` (1 to kVectors) vectors of output pixels from column ox of R (1 or 2)
  // consecutive output rows, dst[r] output row r. rows[i] are the phase rows of the padded
  // input rows they read, output row r's tap row ky being rows[r * S + ky]: each input vector
  // is loaded once for both rows, and two rows' accumulators hide the FMAs' latency, which a
  // row of 56 pixels (four vectors) did not. Each accumulator still adds its taps in kernel
  // order. The last vector keeps only `tail` pixels (1 to L) unless `spill_first` (for row
  // 0) or `spill` (for row R - 1): then it is stored whole, its lanes past the row landing on
  // the start of the row after, which is written later. KH, KW, S: the kernel and stride
  // when known at compile time (0 for a kernel read from g).
  template <int KH, int KW, int S, int R, int count>
  [[gnu::always_inline]] static inline void pixels(const float* const* rows, std::int64_t stride,
                                                   const Vec* taps, const float* w, Vec bias,
                                                   const ConvGeometry& g, std::int64_t ox,
                                                   std::int64_t tail, bool spill_first, bool spill,
                                                   float* const* dst) {
    static_assert(kVectors == 4 && (R == 1 || R == 2));
    const std::int64_t kh = KH != 0 ? KH : g.kh;
    const std::int64_t kw = KW != 0 ? KW : g.kw;
    const std::int64_t s = S;
    // Named accumulators: GCC 12 spills an array of vectors to the stack.
    Vec a0 = bias, a1 = bias, a2 = bias, a3 = bias;  // output row 0
    Vec b0 = bias, b1 = bias, b2 = bias, b3 = bias;  // output row 1
#pragma GCC unroll 9
    for (std::int64_t i = 0; i < kh + s * (R - 1); ++i) {
#pragma GCC unroll 7
      for (std::int64_t kx = 0; kx < kw; ++kx) {
        const float* p = rows[i] + (kx % s) * stride + kx / s + ox;
        const Vec x0 = load(p);
        Vec x1 = {}, x2 = {}, x3 = {};
        if constexpr (count > 1) x1 = load(p + L);
        if constexpr (count > 2) x2 = load(p + 2 * L);
        if constexpr (count > 3) x3 = load(p + 3 * L);
        if (i < kh) {
          const Vec wt = KW != 0 ? taps[i * kw + kx] : splat(w[i * kw + kx]);
          multiply_add(a0, wt, x0);
          if constexpr (count > 1) multiply_add(a1, wt, x1);
          if constexpr (count > 2) multiply_add(a2, wt, x2);
          if constexpr (count > 3) multiply_add(a3, wt, x3);
        }
        if (R == 2 && i >= s) {
          const Vec wt = KW != 0 ? taps[(i - s) * kw + kx] : splat(w[(i - s) * kw + kx]);
          multiply_add(b0, wt, x0);
          if constexpr (count > 1) multiply_add(b1, wt, x1);
          if constexpr (count > 2) multiply_add(b2, wt, x2);
          if constexpr (count > 3) multiply_add(b3, wt, x3);
        }
      }
    }
    // Row 0's spill lands on row 1, stored after it.
    put<count>(dst[0] + ox, tail, spill_first, a0, a1, a2, a3);
    if constexpr (R == 2) put<count>(dst[1] + ox, tail, spill, b0, b1, b2, b3);
  }

  // Stores `count` vectors at dst, the last one whole or its first `tail` lanes.
  template <int count>
  [[gnu::always_inline]] static inline void put(float* dst, std::int64_t tail, bool whole, Vec v0,
                                                Vec v1, Vec v2, Vec v3) {
    const Vec acc[kVectors] = {v0, v1, v2, v3};
    for (int i = 0; i + 1 < count; ++i) store(dst + i * L, acc[i]);
    if (whole || tail == L) {
      store(dst + (count - 1) * L, acc[count - 1]);
    } else {
      __builtin_memcpy(dst + (count - 1) * L, &acc[count - 1],
                       static_cast<std::size_t>(tail) * sizeof(float));
    }
  }

  // R output rows (dst[r] row r), rows[i] as `pixels` takes them; `taps` the weights
  // splatted when KH and KW are known; `spill_first` and `spill` as pixels takes them.
  template <int KH, int KW, int S, int R>
  [[gnu::always_inline]] static inline void row(const float* const* rows, std::int64_t stride,
                                                const Vec* taps, const float* w, Vec bias,
                                                const ConvGeometry& g, bool spill_first, bool spill,
                                                float* const* dst) {
    // The last vectors first: row 0's spill onto row 1 is then overwritten by the whole
    // chunks' stores of row 1.
    const std::int64_t chunk = kVectors * L;
    const std::int64_t whole = g.ow / chunk * chunk;
    const std::int64_t left = g.ow - whole;
    const std::int64_t tail = left - (left - 1) / L * L;
    switch ((left + L - 1) / L) {
      case 1:
        pixels<KH, KW, S, R, 1>(rows, stride, taps, w, bias, g, whole, tail, spill_first, spill,
                                dst);
        break;
      case 2:
        pixels<KH, KW, S, R, 2>(rows, stride, taps, w, bias, g, whole, tail, spill_first, spill,
                                dst);
        break;
      case 3:
        pixels<KH, KW, S, R, 3>(rows, stride, taps, w, bias, g, whole, tail, spill_first, spill,
                                dst);
        break;
      case 4:
        pixels<KH, KW, S, R, 4>(rows, stride, taps, w, bias, g, whole, tail, spill_first, spill,
                                dst);
        break;
      default:  // none left
        break;
    }
    for (std::int64_t ox = 0; ox < whole; ox += chunk) {
      pixels<KH, KW, S, R, kVectors>(rows, stride, taps, w, bias, g, ox, L, false, false, dst);
    }
  }

  // Output rows [oy0, oy1) of the plane `dst` (oh x ow) from the input plane `plane`, two at
  // a time. The padded input rows are packed as the output rows come near them, into a ring
  // of rows (a band's whole input overflows L1 at 112x112) zeroed once, so that packing a row
  // copies only its image columns; padding rows all read one row of zeros.
  template <int KH, int KW, int S>
  [[gnu::always_inline]] static inline void band(const float* plane, const float* w, Vec bias,
                                                 const ConvGeometry& g, std::int64_t oy0,
                                                 std::int64_t oy1, float* dst,
                                                 std::vector<float>& scratch) {
    Vec taps[KH * KW > 0 ? KH * KW : 1];
    if constexpr (KH * KW > 0) {
      for (int t = 0; t < KH * KW; ++t) taps[t] = splat(w[t]);
    }
    const std::int64_t kh = KH != 0 ? KH : g.kh;
    const Layout at(g);
    const std::int64_t row_floats = at.row_floats(g);
    // Rows are packed `ahead` output rows before they are read: read at once, the copy's
    // stores would still be in flight, and a load straddling two of them waits for both.
    const std::int64_t ahead = 2 * S;
    const std::int64_t span = kh + S;  // the input rows two output rows read
    const std::int64_t ring = span + ahead;
    float* base = simd::line_aligned(scratch, (ring + 1) * row_floats);
    float* zeros = base + ring * row_floats;
    for (std::int64_t r = 0; r < ring; ++r) Rows::zero_padding(g, at, base + r * row_floats);
    std::fill_n(zeros, row_floats, 0.0f);
    // The rows two output rows read: on the stack for kernels up to 15 rows tall.
    constexpr std::int64_t kLocalRows = 16;
    const float* local_rows[kLocalRows];
    std::vector<const float*> heap_rows(span > kLocalRows ? static_cast<std::size_t>(span) : 0);
    const float** rows = span > kLocalRows ? heap_rows.data() : local_rows;
    const std::int64_t end = (oy1 - 1) * S + kh;  // past the last padded row read
    std::int64_t next = oy0 * S;                  // the next padded row to pack
    for (std::int64_t oy = oy0; oy < oy1; oy += 2) {
      const std::int64_t top = oy * S;
      const bool pair = oy + 1 < oy1;
      for (; next < std::min(end, top + span + ahead); ++next) {
        const std::int64_t y = next - g.ph;
        if (y >= 0 && y < g.h) {
          Rows::pack(plane, y, g, at, base + next % ring * row_floats);
        }
      }
      for (std::int64_t i = 0; i < (pair ? span : kh); ++i) {
        const std::int64_t y = top + i - g.ph;
        rows[i] = (y >= 0 && y < g.h ? base + (top + i) % ring * row_floats : zeros) + at.shift;
      }
      float* out[2] = {dst + oy * g.ow, dst + (oy + 1) * g.ow};
      // A last vector stored whole reaches at most L - 1 floats into the next row when a row
      // holds a vector or more; the band's last row stores exact tails (the next row may be
      // another thread's, or past the tensor).
      const bool wide = g.ow >= L;
      if (pair) {
        row<KH, KW, S, 2>(rows, at.stride, taps, w, bias, g, wide, wide && oy + 2 < oy1, out);
      } else {
        row<KH, KW, S, 1>(rows, at.stride, taps, w, bias, g, false, false, out);
      }
    }
  }

  // Output channel oc of image n, output rows [oy0, oy1), then `fused`.
  [[gnu::always_inline]] static inline void run(const float* in, const float* weight,
                                                const float* bias, float* out,
                                                const ConvGeometry& g, std::int64_t n,
                                                std::int64_t oc, std::int64_t oy0, std::int64_t oy1,
                                                const Epilogue* fused,
                                                std::vector<float>& scratch) {
    const float* plane = in + (n * g.c + oc / (g.o / g.c)) * g.h * g.w;
    float* dst = out + (n * g.o + oc) * g.oh * g.ow;
    const float* w = weight + oc * g.kh * g.kw;
    const Vec b = splat(bias == nullptr ? 0.0f : bias[oc]);
    const bool s2 = g.sw == 2;
    if (g.kh == 3 && g.kw == 3) {
      s2 ? band<3, 3, 2>(plane, w, b, g, oy0, oy1, dst, scratch)
         : band<3, 3, 1>(plane, w, b, g, oy0, oy1, dst, scratch);
    } else if (g.kh == 5 && g.kw == 5) {
      s2 ? band<5, 5, 2>(plane, w, b, g, oy0, oy1, dst, scratch)
         : band<5, 5, 1>(plane, w, b, g, oy0, oy1, dst, scratch);
    } else if (g.kh == 7 && g.kw == 7) {
      s2 ? band<7, 7, 2>(plane, w, b, g, oy0, oy1, dst, scratch)
         : band<7, 7, 1>(plane, w, b, g, oy0, oy1, dst, scratch);
    } else if (g.kh == 1 && g.kw == 3) {  // a depthwise conv1d's (one row)
      s2 ? band<1, 3, 2>(plane, w, b, g, oy0, oy1, dst, scratch)
         : band<1, 3, 1>(plane, w, b, g, oy0, oy1, dst, scratch);
    } else if (g.kh == 1 && g.kw == 5) {
      s2 ? band<1, 5, 2>(plane, w, b, g, oy0, oy1, dst, scratch)
         : band<1, 5, 1>(plane, w, b, g, oy0, oy1, dst, scratch);
    } else {
      s2 ? band<0, 0, 2>(plane, w, b, g, oy0, oy1, dst, scratch)
         : band<0, 0, 1>(plane, w, b, g, oy0, oy1, dst, scratch);
    }
    finish_plane(fused, dst + oy0 * g.ow, (oy1 - oy0) * g.ow, oc);
  }
};

using BandFn = void (*)(const float*, const float*, const float*, float*, const ConvGeometry&,
                        std::int64_t, std::int64_t, std::int64_t, std::int64_t, const Epilogue*,
                        std::vector<float>&);

// One copy per instruction set, picked at run time (FMAs where the target has them:
// simd::multiply_add).
__attribute__((target("avx512f"))) void band_avx512(const float* in, const float* weight,
                                                    const float* bias, float* out,
                                                    const ConvGeometry& g, std::int64_t n,
                                                    std::int64_t oc, std::int64_t oy0,
                                                    std::int64_t oy1, const Epilogue* fused,
                                                    std::vector<float>& scratch) {
  Plane<Vec16>::run(in, weight, bias, out, g, n, oc, oy0, oy1, fused, scratch);
}

__attribute__((target("avx2,fma"))) void band_avx2(const float* in, const float* weight,
                                                   const float* bias, float* out,
                                                   const ConvGeometry& g, std::int64_t n,
                                                   std::int64_t oc, std::int64_t oy0,
                                                   std::int64_t oy1, const Epilogue* fused,
                                                   std::vector<float>& scratch) {
  Plane<Vec8>::run(in, weight, bias, out, g, n, oc, oy0, oy1, fused, scratch);
}

void band_baseline(const float* in, const float* weight, const float* bias, float* out,
                   const ConvGeometry& g, std::int64_t n, std::int64_t oc, std::int64_t oy0,
                   std::int64_t oy1, const Epilogue* fused, std::vector<float>& scratch) {
  Plane<Vec4>::run(in, weight, bias, out, g, n, oc, oy0, oy1, fused, scratch);
}

// The widest version this CPU runs, chosen once.
BandFn best_band() {
  static const BandFn best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return &band_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &band_avx2;
    return &band_baseline;
  }();
  return best;
}

}  // namespace

bool depthwise_direct_shape(const ConvGeometry& g) {
  return g.sh == g.sw && (g.sw == 1 || g.sw == 2) && g.dh == 1 && g.dw == 1;
}

void depthwise_conv2d_direct(const float* in, const float* weight, const float* bias, float* out,
                             const ConvGeometry& g, const Epilogue* fused) {
  const BandFn band = best_band();
  const std::int64_t planes = g.n * g.o;
  // Fewer planes than threads twice over (a batch of one with few channels): planes in bands
  // of output rows too.
  const std::int64_t threads = intra_op_threads();
  const std::int64_t bands = threads == 1
                                 ? 1
                                 : std::clamp<std::int64_t>((2 * threads + planes - 1) / planes, 1,
                                                            std::max<std::int64_t>(1, g.oh / 4));
  const std::int64_t work_per_unit = std::max<std::int64_t>(1, g.oh * g.ow * g.kh * g.kw / bands);
  parallel_for(planes * bands, std::max<std::int64_t>(1, (std::int64_t{1} << 16) / work_per_unit),
               [&](std::int64_t first, std::int64_t last) {
                 // Kept per thread: a fresh buffer page-faults on every call.
                 thread_local std::vector<float> scratch;
                 for (std::int64_t unit = first; unit < last; ++unit) {
                   const std::int64_t plane = unit / bands;
                   const std::int64_t part = unit % bands;
                   band(in, weight, bias, out, g, plane / g.o, plane % g.o, g.oh * part / bands,
                        g.oh * (part + 1) / bands, fused, scratch);
                 }
               });
}

}  // namespace symbolite::ops::nn
