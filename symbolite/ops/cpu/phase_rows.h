// Input rows packed for convolution kernels that put consecutive output pixels in vector
// lanes (depthwise_direct.cpp, stem_conv.cpp): tap (ky, kx) of output pixels [ox, ox + L)
// reads input pixels ox * s + kx, which for stride s = 2 are every other pixel. So each input
// row is first copied zero-padded into scratch, split into s phase rows (phase q holds padded
// columns q, q + s, q + 2s, ...): every tap is then one unaligned vector load, with no
// shuffles.
//
// Everything is always inlined into the callers' per-instruction-set functions (float_lanes.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/cpu/float_lanes.h"

namespace symbolite::ops::simd {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
template <typename Vec>
struct PhaseRows : Lanes<Vec> {
  using Lanes<Vec>::L;
  using Lanes<Vec>::load;
  using Lanes<Vec>::store;

  // Lanes 0, 2, 4, ... of a followed by b's.
  template <int... K>
  [[gnu::always_inline]] static inline Vec even_lanes(Vec a, Vec b,
                                                      std::integer_sequence<int, K...>) {
    return __builtin_shufflevector(a, b, (2 * K)...);
  }
  // Lanes 1, 3, 5, ... of a followed by b's.
  template <int... K>
  [[gnu::always_inline]] static inline Vec odd_lanes(Vec a, Vec b,
                                                     std::integer_sequence<int, K...>) {
    return __builtin_shufflevector(a, b, (2 * K + 1)...);
  }
  // x in every lane: -0.0 + x is x exactly (0.0 + x is not, for x = -0.0), so GCC makes it a
  // broadcast, from memory when x is loaded (0.0 + x cost an add and a register broadcast).
  [[gnu::always_inline]] static inline Vec splat(float x) { return -Vec{} + x; }

  // Where a padded input row's phase rows sit in scratch. Phase q's column j (padded column
  // q + s * j) is at q * stride + shift + j: `width` columns cover every output vector's taps
  // (the last vector's lanes past the row's end included), and `shift` puts phase 0's first
  // image column on a vector boundary, so the copy's stores each write one cache line.
  struct Layout {
    std::int64_t width, shift, stride;

    [[gnu::always_inline]] inline explicit Layout(const nn::ConvGeometry& g)
        : width((g.ow + L - 1) / L * L + (g.kw - 1) / g.sw + 1),
          shift((L - (g.pw + g.sw - 1) / g.sw % L) % L),
          stride((shift + width + L - 1) / L * L) {}
    // Floats a packed row takes.
    [[gnu::always_inline]] inline std::int64_t row_floats(const nn::ConvGeometry& g) const {
      return g.sw * stride;
    }
  };

  // x / s for x >= 0 and a stride s of 1 or 2, the only ones packed, as a shift: a 64-bit
  // division takes 40-90 cycles on Skylake-SP and Cascade Lake, and two a packed row were a
  // quarter of a 144 x 56x56 depthwise convolution's time there.
  [[gnu::always_inline]] static inline std::int64_t over_stride(std::int64_t x, std::int64_t s) {
    return x >> (s - 1);
  }

  // Phase row q's columns that hold the image, [first, last) after the row's shift: phase
  // column j is padded column q + sw * j, input column q + sw * j - pw.
  [[gnu::always_inline]] static inline std::pair<std::int64_t, std::int64_t> image_columns(
      const nn::ConvGeometry& g, const Layout& at, std::int64_t q) {
    const std::int64_t first = std::clamp<std::int64_t>(
        g.pw - q <= 0 ? 0 : over_stride(g.pw - q + g.sw - 1, g.sw), 0, at.width);
    const std::int64_t last = std::clamp<std::int64_t>(
        g.w - 1 + g.pw - q < 0 ? 0 : over_stride(g.w - 1 + g.pw - q, g.sw) + 1, first, at.width);
    return {first, last};
  }

  // Zeroes the floats of a packed row (row_floats of them at `dst`) that pack never writes:
  // once, before the row is first packed. (A whole ring of rows zeroed per call cost more
  // than the convolution on a one-row plane 16000 wide: a depthwise conv1d's.)
  [[gnu::always_inline]] static inline void zero_padding(const nn::ConvGeometry& g,
                                                         const Layout& at, float* dst) {
    for (std::int64_t q = 0; q < g.sw; ++q) {
      float* row = dst + q * at.stride;
      const auto [first, last] = image_columns(g, at, q);
      std::fill(row, row + at.shift + first, 0.0f);
      std::fill(row + at.shift + last, row + at.stride, 0.0f);
    }
  }

  // Input row y of `plane` as the sw phase rows of its zero-padded copy, into `dst` (placed as
  // `at` says); sw is 1 or 2. Only the image's columns are written: callers zero the rest of
  // their ring of rows once (zero_padding), and the padding columns, never written, stay zero
  // (zeroing them every row took two memset calls a row, as long as the copy on MnasNet's
  // rows).
  [[gnu::always_inline]] static inline void pack(const float* plane, std::int64_t y,
                                                 const nn::ConvGeometry& g, const Layout& at,
                                                 float* dst) {
    const float* src = plane + y * g.w;
    if (g.sw == 2) return pack_phases(src, g.w, g.pw, at, dst);
    float* row = dst + at.shift;
    const auto [first, last] = image_columns(g, at, 0);
    // Loops rather than memcpy: rows are a few hundred bytes, where the library call costs
    // more than the copy.
    const float* from = src + first - g.pw;
    std::int64_t j = first;
    for (; j + L <= last; j += L) store(row + j, load(from + (j - first)));
    // The last columns as one vector ending at the row's last: it overlaps columns already
    // copied, and stays inside the row.
    if (j < last && last - first >= L) {
      store(row + last - L, load(from + (last - L - first)));
      j = last;
    }
    for (; j < last; ++j) row[j] = from[j - first];
  }

  // 2L floats from `from`: the even ones to `even`, the odd ones to `odd`.
  [[gnu::always_inline]] static inline void split_lanes(const float* from, float* even,
                                                        float* odd) {
    constexpr auto lanes = std::make_integer_sequence<int, L>{};
    const Vec a = load(from), b = load(from + L);
    store(even, even_lanes(a, b, lanes));
    store(odd, odd_lanes(a, b, lanes));
  }

  // Stride 2: input column x is padded column x + pw, phase (x + pw) % 2's column
  // (x + pw) / 2. One pass over the row: each 2L input columns from one whose padded column
  // is even give L columns of each phase, the even and the odd lanes of two vectors (two
  // passes, one a phase, loaded every vector twice and took half of a 16-channel 112x112
  // depthwise convolution's time). The last 2L columns are one more such step, ending at the
  // row's end and overlapping the steps before; columns a phase row has no room for (past
  // `at.width`, read by no tap) are not written.
  [[gnu::always_inline]] static inline void pack_phases(const float* src, std::int64_t w,
                                                        std::int64_t pw, const Layout& at,
                                                        float* dst) {
    float* const even = dst + at.shift;
    float* const odd = even + at.stride;
    // A phase column j of a vector store must keep j + L inside its row's floats.
    const std::int64_t room = at.stride - at.shift;
    auto fits = [&](std::int64_t x) { return x + 2 * L <= w && ((x + pw) >> 1) + L <= room; };
    // (Vector code stays in the always-inlined members: a lambda would not inherit the
    // caller's instruction set.)
    auto scalar = [&](std::int64_t x) {
      const std::int64_t j = (x + pw) >> 1;
      if (j < at.width) (((x + pw) & 1) != 0 ? odd : even)[j] = src[x];
    };
    const std::int64_t x0 = std::min<std::int64_t>(pw & 1, w);  // padded column even from x0
    if (x0 == 1) scalar(0);
    std::int64_t x = x0;  // columns [0, x) are packed
    for (; fits(x); x += 2 * L) {
      const std::int64_t j = (x + pw) >> 1;
      split_lanes(src + x, even + j, odd + j);
    }
    const std::int64_t back = w - 2 * L - ((w - 2 * L + pw) & 1);
    if (x < w && back >= x0 && fits(back)) {
      for (std::int64_t c = x; c < back; ++c) scalar(c);  // none unless `room` stopped the loop
      const std::int64_t j = (back + pw) >> 1;
      split_lanes(src + back, even + j, odd + j);
      for (std::int64_t c = back + 2 * L; c < w; ++c) scalar(c);  // at most one
      x = w;
    }
    for (; x < w; ++x) scalar(x);
  }
};
#pragma GCC diagnostic pop

}  // namespace symbolite::ops::simd
