#include "symbolite/ops/cpu/float_transpose.h"

#include <immintrin.h>

#include <algorithm>

#include "symbolite/ops/cpu/avx512_halves.h"
#include "symbolite/ops/cpu/cpu_features.h"

namespace symbolite::ops {
namespace {

// Tiles of this many rows and columns, so that a tile's rows stay in L1 between its reads.
constexpr std::int64_t kScalarTile = 8;

}  // namespace

void transpose_isa::scalar(const float* src, std::int64_t src_stride, float* dst,
                           std::int64_t dst_stride, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t i0 = 0; i0 < rows; i0 += kScalarTile) {
    const std::int64_t i1 = std::min(rows, i0 + kScalarTile);
    for (std::int64_t j0 = 0; j0 < cols; j0 += kScalarTile) {
      const std::int64_t j1 = std::min(cols, j0 + kScalarTile);
      for (std::int64_t j = j0; j < j1; ++j) {
        for (std::int64_t i = i0; i < i1; ++i) dst[j * dst_stride + i] = src[i * src_stride + j];
      }
    }
  }
}

namespace {

// ---------------------------------------------------------------- AVX-512: 16 x 16 tiles

// r[j] becomes column j of the tile whose row i was r[i]: pairs of rows interleaved, then
// quadruples (each 128-bit lane now holds 4 rows of one column), then the lanes gathered.
__attribute__((target("avx512f"))) inline void transpose16(__m512 (&r)[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_maskz_unpacklo_ps(avx512::kAllLanes, r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_maskz_unpackhi_ps(avx512::kAllLanes, r[2 * i], r[2 * i + 1]);
  }
  // r[4i + j], lane k: rows 4i .. 4i + 3 of column 4k + j.
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = _mm512_maskz_shuffle_ps(avx512::kAllLanes, t[4 * i], t[4 * i + 2], 0x44);
    r[4 * i + 1] = _mm512_maskz_shuffle_ps(avx512::kAllLanes, t[4 * i], t[4 * i + 2], 0xEE);
    r[4 * i + 2] = _mm512_maskz_shuffle_ps(avx512::kAllLanes, t[4 * i + 1], t[4 * i + 3], 0x44);
    r[4 * i + 3] = _mm512_maskz_shuffle_ps(avx512::kAllLanes, t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  // Lanes 0 and 2 (0x88) or 1 and 3 (0xDD) of two registers, twice over.
  for (int j = 0; j < 4; ++j) {
    t[j] = _mm512_maskz_shuffle_f32x4(avx512::kAllLanes, r[j], r[4 + j], 0x88);
    t[4 + j] = _mm512_maskz_shuffle_f32x4(avx512::kAllLanes, r[j], r[4 + j], 0xDD);
    t[8 + j] = _mm512_maskz_shuffle_f32x4(avx512::kAllLanes, r[8 + j], r[12 + j], 0x88);
    t[12 + j] = _mm512_maskz_shuffle_f32x4(avx512::kAllLanes, r[8 + j], r[12 + j], 0xDD);
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm512_maskz_shuffle_f32x4(avx512::kAllLanes, t[j], t[8 + j], 0x88);
    r[8 + j] = _mm512_maskz_shuffle_f32x4(avx512::kAllLanes, t[j], t[8 + j], 0xDD);
    r[4 + j] = _mm512_maskz_shuffle_f32x4(avx512::kAllLanes, t[4 + j], t[12 + j], 0x88);
    r[12 + j] = _mm512_maskz_shuffle_f32x4(avx512::kAllLanes, t[4 + j], t[12 + j], 0xDD);
  }
}

// One tile of `rows` x `cols` (each at most 16); a whole one without masks.
__attribute__((target("avx512f"))) inline void tile16(const float* src, std::int64_t src_stride,
                                                      float* dst, std::int64_t dst_stride,
                                                      std::int64_t rows, std::int64_t cols) {
  __m512 r[16];
  if (rows == 16 && cols == 16) {
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * src_stride);
    transpose16(r);
    for (int j = 0; j < 16; ++j) _mm512_storeu_ps(dst + j * dst_stride, r[j]);
    return;
  }
  const auto col_mask = static_cast<__mmask16>((1u << cols) - 1);
  const auto row_mask = static_cast<__mmask16>((1u << rows) - 1);
  for (int i = 0; i < 16; ++i) {
    r[i] = i < rows ? _mm512_maskz_loadu_ps(col_mask, src + i * src_stride) : _mm512_setzero_ps();
  }
  transpose16(r);
  for (int j = 0; j < cols; ++j) _mm512_mask_storeu_ps(dst + j * dst_stride, row_mask, r[j]);
}

}  // namespace

__attribute__((target("avx512f"))) void transpose_isa::avx512(const float* src,
                                                              std::int64_t src_stride, float* dst,
                                                              std::int64_t dst_stride,
                                                              std::int64_t rows,
                                                              std::int64_t cols) {
  for (std::int64_t i = 0; i < rows; i += 16) {
    const std::int64_t tile_rows = std::min<std::int64_t>(16, rows - i);
    for (std::int64_t j = 0; j < cols; j += 16) {
      tile16(src + i * src_stride + j, src_stride, dst + j * dst_stride + i, dst_stride, tile_rows,
             std::min<std::int64_t>(16, cols - j));
    }
  }
}

namespace {

// ---------------------------------------------------------------- AVX2: 8 x 8 tiles

__attribute__((target("avx2"))) inline void tile8(const float* src, std::int64_t src_stride,
                                                  float* dst, std::int64_t dst_stride) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * src_stride);
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // r[4i + j], half k: rows 4i .. 4i + 3 of column 4k + j.
  for (int i = 0; i < 2; ++i) {
    r[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    r[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    r[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    r[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    _mm256_storeu_ps(dst + j * dst_stride, _mm256_permute2f128_ps(r[j], r[4 + j], 0x20));
    _mm256_storeu_ps(dst + (4 + j) * dst_stride, _mm256_permute2f128_ps(r[j], r[4 + j], 0x31));
  }
}

}  // namespace

__attribute__((target("avx2"))) void transpose_isa::avx2(const float* src, std::int64_t src_stride,
                                                         float* dst, std::int64_t dst_stride,
                                                         std::int64_t rows, std::int64_t cols) {
  const std::int64_t whole_rows = rows / 8 * 8, whole_cols = cols / 8 * 8;
  for (std::int64_t i = 0; i < whole_rows; i += 8) {
    for (std::int64_t j = 0; j < whole_cols; j += 8) {
      tile8(src + i * src_stride + j, src_stride, dst + j * dst_stride + i, dst_stride);
    }
  }
  // The edges: the last columns of the whole rows, then the last rows.
  transpose_isa::scalar(src + whole_cols, src_stride, dst + whole_cols * dst_stride, dst_stride,
                        whole_rows, cols - whole_cols);
  transpose_isa::scalar(src + whole_rows * src_stride, src_stride, dst + whole_rows, dst_stride,
                        rows - whole_rows, cols);
}

void transpose_f32(const float* src, std::int64_t src_stride, float* dst, std::int64_t dst_stride,
                   std::int64_t rows, std::int64_t cols) {
  if (rows <= 0 || cols <= 0) return;
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (cpu_has_avx512f()) {
    transpose_isa::avx512(src, src_stride, dst, dst_stride, rows, cols);
  } else if (avx2) {
    transpose_isa::avx2(src, src_stride, dst, dst_stride, rows, cols);
  } else {
    transpose_isa::scalar(src, src_stride, dst, dst_stride, rows, cols);
  }
}

}  // namespace symbolite::ops
