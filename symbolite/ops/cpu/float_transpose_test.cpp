// The float transpose (float_transpose.h) on every instruction set this CPU has, on sizes
// around its tiles (whole, partial and single rows and columns of 8 and 16) and strides wider
// than the rows: every element where it belongs, and nothing written between the rows.
#include "symbolite/ops/cpu/float_transpose.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/cpu/cpu_features.h"

namespace symbolite::ops {
namespace {

using Transpose = void (*)(const float*, std::int64_t, float*, std::int64_t, std::int64_t,
                           std::int64_t);

constexpr float kUntouched = -12345.0f;

void expect_transposes(Transpose transpose) {
  std::mt19937 random(7);
  const std::int64_t sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 49, 64};
  for (std::int64_t rows : sizes) {
    for (std::int64_t cols : sizes) {
      const std::int64_t src_stride = cols + static_cast<std::int64_t>(random() % 5);
      const std::int64_t dst_stride = rows + static_cast<std::int64_t>(random() % 5);
      std::vector<float> src(static_cast<std::size_t>(rows * src_stride));
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) + 0.5f;
      std::vector<float> dst(static_cast<std::size_t>(cols * dst_stride), kUntouched);
      transpose(src.data(), src_stride, dst.data(), dst_stride, rows, cols);
      for (std::int64_t j = 0; j < cols; ++j) {
        for (std::int64_t i = 0; i < dst_stride; ++i) {
          const float want =
              i < rows ? src[static_cast<std::size_t>(i * src_stride + j)] : kUntouched;
          ASSERT_EQ(dst[static_cast<std::size_t>(j * dst_stride + i)], want)
              << rows << " x " << cols << " (strides " << src_stride << ", " << dst_stride
              << "): row " << i << ", column " << j;
        }
      }
    }
  }
}

TEST(FloatTranspose, ScalarMovesEveryElement) { expect_transposes(&transpose_isa::scalar); }

TEST(FloatTranspose, Avx2MovesEveryElement) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2 here";
  expect_transposes(&transpose_isa::avx2);
}

TEST(FloatTranspose, Avx512MovesEveryElement) {
  if (!cpu_has_avx512f()) GTEST_SKIP() << "no AVX-512 here";
  expect_transposes(&transpose_isa::avx512);
}

TEST(FloatTranspose, EmptyWritesNothing) {
  std::vector<float> dst(4, kUntouched);
  const float src[4] = {1, 2, 3, 4};
  transpose_f32(src, 2, dst.data(), 2, 0, 2);
  transpose_f32(src, 2, dst.data(), 2, 2, 0);
  EXPECT_EQ(dst, std::vector<float>(4, kUntouched));
}

}  // namespace
}  // namespace symbolite::ops
