#include "symbolite/ops/cpu/depthwise_by_plane.h"

#include <immintrin.h>

#include <algorithm>
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
// width are computed and dropped.
struct Phases {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t count = 0;   // sh * sw
  std::vector<float> data;  // count x rows x cols, plus one row of slack
};

// Sizes the phases for `g` and zeroes them. The padding cells stay zero from then on: every
// channel writes the same interior cells.
void prepare_phases(const ConvGeometry& g, Phases& p) {
  std::int64_t padded_rows = g.h + 2 * g.ph;
  std::int64_t padded_cols = g.w + 2 * g.pw;
  p.rows = (padded_rows + g.sh - 1) / g.sh;
  p.cols = (padded_cols + g.sw - 1) / g.sw;
  p.count = g.sh * g.sw;
  p.data.assign(static_cast<std::size_t>(p.count * p.rows * p.cols + p.cols), 0.0f);
}

// Writes one input plane into the interior of the phases.
void fill_phases(const float* src, const ConvGeometry& g, Phases& p) {
  std::int64_t plane = p.rows * p.cols;
  for (std::int64_t y = 0; y < g.h; ++y) {
    std::int64_t py = y + g.ph;
    float* rows = p.data.data() + (py % g.sh) * g.sw * plane + (py / g.sh) * p.cols;
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

// out[v] = bias + sum over taps t of w[t] * tap[t][v], for v in [0, n). Accumulators stay in
// registers while every tap is added; several independent ones hide the FMA latency.
__attribute__((target("avx512f"))) void tap_sum_avx512(float* out, const float* const* tap,
                                                       const float* w, float bias, std::int64_t n,
                                                       std::int64_t taps) {
  std::int64_t v = 0;
  for (; v + 64 <= n; v += 64) {
    __m512 a0 = _mm512_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0;
    for (std::int64_t t = 0; t < taps; ++t) {
      __m512 wt = _mm512_set1_ps(w[t]);
      const float* src = tap[t] + v;
      a0 = _mm512_fmadd_ps(wt, _mm512_loadu_ps(src), a0);
      a1 = _mm512_fmadd_ps(wt, _mm512_loadu_ps(src + 16), a1);
      a2 = _mm512_fmadd_ps(wt, _mm512_loadu_ps(src + 32), a2);
      a3 = _mm512_fmadd_ps(wt, _mm512_loadu_ps(src + 48), a3);
    }
    _mm512_storeu_ps(out + v, a0);
    _mm512_storeu_ps(out + v + 16, a1);
    _mm512_storeu_ps(out + v + 32, a2);
    _mm512_storeu_ps(out + v + 48, a3);
  }
  for (; v < n; v += 16) {
    // The last block is masked: lanes past n are neither read nor written.
    __mmask16 mask = n - v >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - v)) - 1);
    __m512 a = _mm512_set1_ps(bias);
    for (std::int64_t t = 0; t < taps; ++t) {
      a = _mm512_fmadd_ps(_mm512_set1_ps(w[t]), _mm512_maskz_loadu_ps(mask, tap[t] + v), a);
    }
    _mm512_mask_storeu_ps(out + v, mask, a);
  }
}

__attribute__((target("avx2,fma"))) void tap_sum_avx2(float* out, const float* const* tap,
                                                      const float* w, float bias, std::int64_t n,
                                                      std::int64_t taps) {
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
  for (; v < n; ++v) {
    float a = bias;
    for (std::int64_t t = 0; t < taps; ++t) a += w[t] * tap[t][v];
    out[v] = a;
  }
}

// The x86-64 baseline: plain loops over blocks the compiler vectorizes with SSE2.
void tap_sum_baseline(float* __restrict out, const float* const* tap, const float* w, float bias,
                      std::int64_t n, std::int64_t taps) {
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

using TapSum = void (*)(float*, const float* const*, const float*, float, std::int64_t,
                        std::int64_t);

// The widest version this CPU runs, chosen once.
TapSum tap_sum() {
  static const TapSum best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return &tap_sum_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &tap_sum_avx2;
    return &tap_sum_baseline;
  }();
  return best;
}

}  // namespace

void depthwise_conv2d_by_plane(const float* in, const float* weight, const float* bias, float* out,
                               const ConvGeometry& g, const Epilogue* fused) {
  const std::int64_t mult = g.o / g.c;  // output channels per input channel
  const std::int64_t taps = g.kh * g.kw;
  const TapSum sum = tap_sum();
  // Input planes (image, channel) are independent: split them across threads, each with its
  // own scratch, so the result does not depend on the thread count.
  const std::int64_t work_per_plane = std::max<std::int64_t>(1, g.oh * g.ow * taps * mult);
  parallel_for(g.n * g.c, std::max<std::int64_t>(1, (std::int64_t{1} << 16) / work_per_plane),
               [&](std::int64_t first, std::int64_t last) {
                 // Scratch kept per thread: freshly allocated, these buffers (hundreds of KiB) come from
                 // mmap and page-fault on every call.
                 thread_local Phases phases;
                 thread_local std::vector<float> wide;  // the output plane at the phases' row pitch
                 prepare_phases(g, phases);
                 // Each tap's address in the phases: the same for every channel, since every channel is
                 // written into the same phases.
                 std::vector<const float*> tap(static_cast<std::size_t>(taps));
                 const std::int64_t plane = phases.rows * phases.cols;
                 for (std::int64_t ki = 0; ki < g.kh; ++ki) {
                   for (std::int64_t kj = 0; kj < g.kw; ++kj) {
                     std::int64_t dy = ki * g.dh;
                     std::int64_t dx = kj * g.dw;
                     std::int64_t phase = (dy % g.sh) * g.sw + dx % g.sw;
                     tap[static_cast<std::size_t>(ki * g.kw + kj)] =
                         phases.data.data() + phase * plane + (dy / g.sh) * phases.cols + dx / g.sw;
                   }
                 }
                 // Only the last output row is cut at the output width: reads stay inside the phase plus
                 // its slack row.
                 const std::int64_t span = (g.oh - 1) * phases.cols + g.ow;
                 const bool direct = phases.cols == g.ow;
                 if (!direct) wide.resize(static_cast<std::size_t>(span));
                 for (std::int64_t index = first; index < last; ++index) {
                   const std::int64_t n = index / g.c;
                   const std::int64_t c = index % g.c;
                   fill_phases(in + (n * g.c + c) * g.h * g.w, g, phases);
                   for (std::int64_t m = 0; m < mult; ++m) {
                     std::int64_t oc = c * mult + m;
                     float* dst = out + (n * g.o + oc) * g.oh * g.ow;
                     sum(direct ? dst : wide.data(), tap.data(), weight + oc * taps,
                         bias == nullptr ? 0.0f : bias[oc], span, taps);
                     if (!direct) {
                       for (std::int64_t oy = 0; oy < g.oh; ++oy) {
                         std::memcpy(dst + oy * g.ow, wide.data() + oy * phases.cols,
                                     static_cast<std::size_t>(g.ow) * sizeof(float));
                       }
                     }
                     finish_plane(fused, dst, g.oh * g.ow, oc);
                   }
                 }
               });
}

}  // namespace symbolite::ops::nn
