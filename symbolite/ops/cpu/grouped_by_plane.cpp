#include "symbolite/ops/cpu/grouped_by_plane.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "symbolite/ops/cpu/depthwise_conv.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

// Each input plane is rewritten once into stride phases: zero-padded, then split by row and
// column remainder modulo the stride (one phase for stride 1, four for stride 2), each phase
// a `rows` x `cols` grid. In phase coordinates every tap reads at a fixed offset from the
// output position, so the output plane, laid out with the phases' row pitch, is a 1-d sum
// of shifted contiguous reads: one long vector loop (AVX-512, AVX2 or SSE2, picked at run
// time) however narrow the rows are (MobileNets end at 7x7). The columns beyond the output
// width are computed and dropped. A group's input channels each get their own phases, one
// after the other.
struct Phases {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t count = 0;   // sh * sw
  std::int64_t planes = 0;  // input channels a group
  std::vector<float> data;  // planes x count x rows x cols, plus one row of slack

  std::int64_t set() const { return count * rows * cols; }  // one input channel's phases
};

// Sizes the phases for `g` and zeroes them. The padding cells stay zero from then on: every
// channel writes the same interior cells.
void prepare_phases(const ConvGeometry& g, Phases& p) {
  std::int64_t padded_rows = g.h + 2 * g.ph;
  std::int64_t padded_cols = g.w + 2 * g.pw;
  p.rows = (padded_rows + g.sh - 1) / g.sh;
  p.cols = (padded_cols + g.sw - 1) / g.sw;
  p.count = g.sh * g.sw;
  p.planes = g.cg;
  p.data.assign(static_cast<std::size_t>(p.planes * p.set() + p.cols), 0.0f);
}

// Writes one input plane into the interior of the phases of a group's input channel `index`.
void fill_phases(const float* src, const ConvGeometry& g, std::int64_t index, Phases& p) {
  std::int64_t plane = p.rows * p.cols;
  for (std::int64_t y = 0; y < g.h; ++y) {
    std::int64_t py = y + g.ph;
    float* rows =
        p.data.data() + index * p.set() + (py % g.sh) * g.sw * plane + (py / g.sh) * p.cols;
    const float* in = src + y * g.w;
    if (g.sw == 1) {
      std::memcpy(rows + g.pw, in, static_cast<std::size_t>(g.w) * sizeof(float));
      continue;
    }
    // Column phase r holds padded columns r, r + sw, ...: input columns from the first x
    // with (x + pw) % sw == r, every sw-th. Stride 2 gets a loop with a constant step, which
    // the compiler turns into vector shuffles.
    if (g.sw == 2) {
      for (std::int64_t r = 0; r < 2; ++r) {
        std::int64_t x0 = (r + g.pw) % 2;  // first input column landing in phase r
        float* __restrict dst = rows + r * plane + (x0 + g.pw) / 2;
        const float* __restrict from = in + x0;
        std::int64_t count = (g.w - x0 + 1) / 2;
        for (std::int64_t i = 0; i < count; ++i) dst[i] = from[2 * i];
      }
      continue;
    }
    for (std::int64_t r = 0; r < g.sw; ++r) {
      std::int64_t x = ((r - g.pw) % g.sw + g.sw) % g.sw;
      float* dst = rows + r * plane + (x + g.pw) / g.sw;
      for (; x < g.w; x += g.sw) *dst++ = in[x];
    }
  }
}

// The lanes of a vector that start `left` elements before the end: all 16, the first
// `left`, or none.
__attribute__((target("avx512f"))) inline __mmask16 lanes(std::int64_t left) {
  return left >= 16 ? __mmask16(0xFFFF) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
}

// Four vectors of one output channel's sums.
struct Sums4 {
  __m512 v0, v1, v2, v3;
};

__attribute__((target("avx512f"))) inline Sums4 start(float bias) {
  const __m512 b = _mm512_set1_ps(bias);
  return {b, b, b, b};
}

__attribute__((target("avx512f"))) inline void add_tap(Sums4& s, float w, const Sums4& x) {
  const __m512 wt = _mm512_set1_ps(w);
  s.v0 = _mm512_fmadd_ps(wt, x.v0, s.v0);
  s.v1 = _mm512_fmadd_ps(wt, x.v1, s.v1);
  s.v2 = _mm512_fmadd_ps(wt, x.v2, s.v2);
  s.v3 = _mm512_fmadd_ps(wt, x.v3, s.v3);
}

__attribute__((target("avx512f"))) inline void store(float* p, const __mmask16* m, const Sums4& s) {
  _mm512_mask_storeu_ps(p, m[0], s.v0);
  _mm512_mask_storeu_ps(p + 16, m[1], s.v1);
  _mm512_mask_storeu_ps(p + 32, m[2], s.v2);
  _mm512_mask_storeu_ps(p + 48, m[3], s.v3);
}

// out[c][v] = bias[c] + sum over taps t of w[c][t] * tap[t][v], for v in [v0, v0 + 64) and C
// (1, 2 or 4) output channels over the same taps (a group's output channels read the same
// inputs: each loaded vector feeds C channels). Four vectors of each channel are summed
// together, tap by tap, so 4 * C independent FMA chains hide the latency; lanes past n are
// neither read nor written. Every lane adds its taps in order: the same bits for any C. The
// sums are named structs, not an array: GCC 12 stores an array of vectors back to the stack on
// every tap.
template <int C>
__attribute__((target("avx512f"))) inline void tap_block_avx512(float* const* out,
                                                                const float* const* tap,
                                                                const float* const* w,
                                                                const float* bias, std::int64_t v0,
                                                                std::int64_t n, std::int64_t taps) {
  const __mmask16 m0 = lanes(n - v0), m1 = lanes(n - v0 - 16), m2 = lanes(n - v0 - 32),
                  m3 = lanes(n - v0 - 48);
  Sums4 a = start(bias[0]);
  Sums4 b = start(bias[C > 1 ? 1 : 0]);
  Sums4 c = start(bias[C > 2 ? 2 : 0]);
  Sums4 d = start(bias[C > 2 ? 3 : 0]);
  for (std::int64_t t = 0; t < taps; ++t) {
    const float* src = tap[t] + v0;
    const Sums4 x = {_mm512_maskz_loadu_ps(m0, src), _mm512_maskz_loadu_ps(m1, src + 16),
                     _mm512_maskz_loadu_ps(m2, src + 32), _mm512_maskz_loadu_ps(m3, src + 48)};
    add_tap(a, w[0][t], x);
    if constexpr (C > 1) add_tap(b, w[1][t], x);
    if constexpr (C > 2) {
      add_tap(c, w[2][t], x);
      add_tap(d, w[3][t], x);
    }
  }
  const __mmask16 m[4] = {m0, m1, m2, m3};
  store(out[0] + v0, m, a);
  if constexpr (C > 1) store(out[1] + v0, m, b);
  if constexpr (C > 2) {
    store(out[2] + v0, m, c);
    store(out[3] + v0, m, d);
  }
}

template <int C>
__attribute__((target("avx512f"))) inline void tap_sums_avx512(float* const* out,
                                                               const float* const* tap,
                                                               const float* const* w,
                                                               const float* bias, std::int64_t n,
                                                               std::int64_t taps) {
  for (std::int64_t v = 0; v < n; v += 64) tap_block_avx512<C>(out, tap, w, bias, v, n, taps);
}

__attribute__((target("avx512f"))) void tap_sum_avx512(float* const* out, const float* const* tap,
                                                       const float* const* w, const float* bias,
                                                       std::int64_t n, std::int64_t taps) {
  tap_sums_avx512<1>(out, tap, w, bias, n, taps);
}

__attribute__((target("avx512f"))) void tap_sum2_avx512(float* const* out, const float* const* tap,
                                                        const float* const* w, const float* bias,
                                                        std::int64_t n, std::int64_t taps) {
  tap_sums_avx512<2>(out, tap, w, bias, n, taps);
}

__attribute__((target("avx512f"))) void tap_sum4_avx512(float* const* out, const float* const* tap,
                                                        const float* const* w, const float* bias,
                                                        std::int64_t n, std::int64_t taps) {
  tap_sums_avx512<4>(out, tap, w, bias, n, taps);
}

__attribute__((target("avx2,fma"))) void tap_sum_avx2_one(float* out, const float* const* tap,
                                                          const float* w, float bias,
                                                          std::int64_t n, std::int64_t taps) {
  std::int64_t v = 0;
  for (; v + 32 <= n; v += 32) {
    __m256 a0 = _mm256_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0;
    for (std::int64_t t = 0; t < taps; ++t) {
      __m256 wt = _mm256_set1_ps(w[t]);
      const float* src = tap[t] + v;
      a0 = _mm256_fmadd_ps(wt, _mm256_loadu_ps(src), a0);
      a1 = _mm256_fmadd_ps(wt, _mm256_loadu_ps(src + 8), a1);
      a2 = _mm256_fmadd_ps(wt, _mm256_loadu_ps(src + 16), a2);
      a3 = _mm256_fmadd_ps(wt, _mm256_loadu_ps(src + 24), a3);
    }
    _mm256_storeu_ps(out + v, a0);
    _mm256_storeu_ps(out + v + 8, a1);
    _mm256_storeu_ps(out + v + 16, a2);
    _mm256_storeu_ps(out + v + 24, a3);
  }
  for (; v + 8 <= n; v += 8) {
    __m256 a = _mm256_set1_ps(bias);
    for (std::int64_t t = 0; t < taps; ++t) {
      a = _mm256_fmadd_ps(_mm256_set1_ps(w[t]), _mm256_loadu_ps(tap[t] + v), a);
    }
    _mm256_storeu_ps(out + v, a);
  }
  // The tail's multiply-adds fused explicitly, as the vectors' are: GCC contracts `a += w * x`
  // only when optimizing, and an -O0 (sanitizer) build rounded them twice, off PyTorch's bits.
  for (; v < n; ++v) {
    float a = bias;
    for (std::int64_t t = 0; t < taps; ++t) a = std::fma(w[t], tap[t][v], a);
    out[v] = a;
  }
}

// The x86-64 baseline: plain loops over blocks the compiler vectorizes with SSE2.
void tap_sum_baseline_one(float* __restrict out, const float* const* tap, const float* w,
                          float bias, std::int64_t n, std::int64_t taps) {
  constexpr std::int64_t kBlock = 16;
  std::int64_t v = 0;
  for (; v + kBlock <= n; v += kBlock) {
    float a[kBlock];
    for (float& i : a) i = bias;
    for (std::int64_t t = 0; t < taps; ++t) {
      float wt = w[t];
      const float* src = tap[t] + v;
      for (std::int64_t i = 0; i < kBlock; ++i) a[i] += wt * src[i];
    }
    for (std::int64_t i = 0; i < kBlock; ++i) out[v + i] = a[i];
  }
  for (; v < n; ++v) {
    float a = bias;
    for (std::int64_t t = 0; t < taps; ++t) a += w[t] * tap[t][v];
    out[v] = a;
  }
}

// One output channel (out[0], w[0], bias[0]), or two, by the taps: the same signature for
// every instruction set.
using TapSum = void (*)(float* const*, const float* const*, const float* const*, const float*,
                        std::int64_t, std::int64_t);

__attribute__((target("avx2,fma"))) void tap_sum_avx2(float* const* out, const float* const* tap,
                                                      const float* const* w, const float* bias,
                                                      std::int64_t n, std::int64_t taps) {
  tap_sum_avx2_one(out[0], tap, w[0], bias[0], n, taps);
}

void tap_sum_baseline(float* const* out, const float* const* tap, const float* const* w,
                      const float* bias, std::int64_t n, std::int64_t taps) {
  tap_sum_baseline_one(out[0], tap, w[0], bias[0], n, taps);
}

// C channels as C passes of one, where no wider kernel exists.
template <TapSum one, int C>
void by_one(float* const* out, const float* const* tap, const float* const* w, const float* bias,
            std::int64_t n, std::int64_t taps) {
  for (int c = 0; c < C; ++c) one(out + c, tap, w + c, bias + c, n, taps);
}

// Kernels for one, two and four output channels at a time.
struct TapSums {
  TapSum one, two, four;
};

// The widest versions this CPU runs, chosen once.
TapSums tap_sums() {
  static const TapSums best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
      return TapSums{&tap_sum_avx512, &tap_sum2_avx512, &tap_sum4_avx512};
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      return TapSums{&tap_sum_avx2, &by_one<&tap_sum_avx2, 2>, &by_one<&tap_sum_avx2, 4>};
    }
    return TapSums{&tap_sum_baseline, &by_one<&tap_sum_baseline, 2>, &by_one<&tap_sum_baseline, 4>};
  }();
  return best;
}

}  // namespace

void grouped_conv2d_by_plane(const float* in, const float* weight, const float* bias, float* out,
                             const ConvGeometry& g, const Epilogue* fused) {
  const std::int64_t og = g.o / g.groups;  // output channels a group
  const std::int64_t taps = g.cg * g.kh * g.kw;
  const TapSums sums = tap_sums();
  // Groups (image, group) are independent: split them across threads, each with its own
  // scratch, so the result does not depend on the thread count.
  const std::int64_t work_per_group = std::max<std::int64_t>(1, g.oh * g.ow * taps * og);
  parallel_for(g.n * g.groups, std::max<std::int64_t>(1, (std::int64_t{1} << 16) / work_per_group),
               [&](std::int64_t first, std::int64_t last) {
                 // Scratch kept per thread: freshly allocated, these buffers (hundreds of KiB)
                 // come from mmap and page-fault on every call.
                 thread_local Phases phases;
                 // Four output planes at the phases' row pitch.
                 thread_local std::vector<float> wide;
                 prepare_phases(g, phases);
                 // Each tap's address in the phases, in weight order (input channel, row,
                 // column): the same for every group, since every group is written into the
                 // same phases.
                 std::vector<const float*> tap(static_cast<std::size_t>(taps));
                 const std::int64_t plane = phases.rows * phases.cols;
                 for (std::int64_t c = 0; c < g.cg; ++c) {
                   for (std::int64_t ki = 0; ki < g.kh; ++ki) {
                     for (std::int64_t kj = 0; kj < g.kw; ++kj) {
                       std::int64_t dy = ki * g.dh;
                       std::int64_t dx = kj * g.dw;
                       std::int64_t phase = (dy % g.sh) * g.sw + dx % g.sw;
                       tap[static_cast<std::size_t>((c * g.kh + ki) * g.kw + kj)] =
                           phases.data.data() + c * phases.set() + phase * plane +
                           (dy / g.sh) * phases.cols + dx / g.sw;
                     }
                   }
                 }
                 // Only the last output row is cut at the output width: reads stay inside the
                 // phase plus its slack row.
                 const std::int64_t span = (g.oh - 1) * phases.cols + g.ow;
                 const bool direct = phases.cols == g.ow;
                 if (!direct) wide.resize(static_cast<std::size_t>(4 * span));
                 for (std::int64_t index = first; index < last; ++index) {
                   const std::int64_t n = index / g.groups;
                   const std::int64_t group = index % g.groups;
                   for (std::int64_t c = 0; c < g.cg; ++c) {
                     fill_phases(in + (n * g.c + group * g.cg + c) * g.h * g.w, g, c, phases);
                   }
                   // Output channels four or two at a time where the group has them.
                   for (std::int64_t m = 0; m < og;) {
                     const int pair = og - m >= 4 ? 4 : og - m >= 2 ? 2 : 1;
                     const std::int64_t oc = group * og + m;
                     float* dst[4];
                     float* target[4];
                     const float* w[4];
                     float b[4];
                     for (int i = 0; i < pair; ++i) {
                       dst[i] = out + (n * g.o + oc + i) * g.oh * g.ow;
                       target[i] = direct ? dst[i] : wide.data() + i * span;
                       w[i] = weight + (oc + i) * taps;
                       b[i] = bias == nullptr ? 0.0f : bias[oc + i];
                     }
                     const TapSum sum = pair == 4 ? sums.four : pair == 2 ? sums.two : sums.one;
                     sum(target, tap.data(), w, b, span, taps);
                     for (int i = 0; i < pair; ++i) {
                       if (direct) {
                         finish_plane(fused, dst[i], g.oh * g.ow, oc + i);
                       } else {
                         finish_plane_from(fused, target[i], phases.cols, dst[i], g.oh, g.ow,
                                           oc + i);
                       }
                     }
                     m += pair;
                   }
                 }
               });
}

}  // namespace symbolite::ops::nn
