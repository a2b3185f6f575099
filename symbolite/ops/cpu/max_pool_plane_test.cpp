// The two-pass float32 max pooling (max_pool_plane.h) against the one-pass definition (the
// window's taps in row-major order, a tap replacing the maximum when greater or NaN, as
// PyTorch's CPU kernel selects), bit for bit: on geometries drawn at random (a fixed seed)
// with windows of 1-5 each way, row strides 1-3, column strides 1 and 2, padding up to half
// the window, the ceil-mode column that starts in the right padding (and the models' 3x3
// stride-2 pools over planes up to 112 wide), and planes of values
// where ties of 0.0 and -0.0, NaNs of different payloads and infinities are common. Models
// reach it through aten::max_pool2d, whose nn cases hold it to PyTorch 1.13's outputs.
#include "symbolite/ops/cpu/max_pool_plane.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support/pool_geometry.h"

namespace symbolite::ops {
namespace {

std::vector<float> one_pass(const std::vector<float>& in, const PoolPlane& p) {
  std::vector<float> out(static_cast<std::size_t>(p.oh * p.ow));
  for (std::int64_t oy = 0; oy < p.oh; ++oy) {
    for (std::int64_t ox = 0; ox < p.ow; ++ox) {
      float m = -std::numeric_limits<float>::infinity();
      for (std::int64_t i = 0; i < p.kh; ++i) {
        for (std::int64_t j = 0; j < p.kw; ++j) {
          const std::int64_t y = oy * p.sh - p.ph + i, x = ox * p.sw - p.pw + j;
          if (y < 0 || y >= p.h || x < 0 || x >= p.w) continue;
          const float v = in[static_cast<std::size_t>(y * p.w + x)];
          if (v > m || std::isnan(v)) m = v;
        }
      }
      out[static_cast<std::size_t>(oy * p.ow + ox)] = m;
    }
  }
  return out;
}

float nan_with(std::uint32_t payload) {
  const std::uint32_t bits = 0x7fc00000u | payload;
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(MaxPoolPlane, GivesTheOnePassBitsOnRandomGeometries) {
  if (!max_pool_plane_takes({4, 4, 2, 2, 2, 2, 2, 2, 0, 0}))
    GTEST_SKIP() << "neither AVX-512 nor AVX2";
  std::mt19937 random(1127);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(random);
  };
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            nan_with(1),
                            nan_with(2),
                            1.0f,
                            -1.0f};
  std::vector<float> scratch;
  auto expect_one_pass_bits = [&](const PoolPlane& p) {
    SCOPED_TRACE(::testing::Message()
                 << p.h << "x" << p.w << " k" << p.kh << "x" << p.kw << " s" << p.sh << "," << p.sw
                 << " p" << p.ph << "," << p.pw << " -> " << p.oh << "x" << p.ow);
    std::vector<float> in(static_cast<std::size_t>(p.h * p.w));
    for (float& v : in) {
      v = draw(0, 3) == 0 ? specials[draw(0, 7)] : static_cast<float>(draw(-4, 4));
    }
    std::vector<float> got(static_cast<std::size_t>(p.oh * p.ow), 12345.0f);
    max_pool_plane_f32(in.data(), got.data(), p, scratch);
    const std::vector<float> want = one_pass(in, p);
    ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
  };
  int checked = 0;
  int three_by_three = 0;         // the windows the kernel unrolls
  int three_wide_stride_two = 0;  // which have a pass of their own
  while (checked < 300 || three_by_three < 40 || three_wide_stride_two < 40) {
    const PoolPlane p = testing::draw_pool_plane(random);
    ASSERT_TRUE(max_pool_plane_takes(p));
    expect_one_pass_bits(p);
    if (::testing::Test::HasFatalFailure()) return;
    ++checked;
    three_by_three += p.kh == 3 && p.kw == 3;
    three_wide_stride_two += p.kh == 3 && p.kw == 3 && p.sw == 2;
  }
  // The models' pools, rows of several vectors: SqueezeNet's (ceil mode: the last window
  // half outside), ResNet's (padding 1), ShuffleNet's.
  for (const PoolPlane& p :
       {PoolPlane{111, 111, 55, 55, 3, 3, 2, 2, 0, 0}, PoolPlane{55, 55, 27, 27, 3, 3, 2, 2, 0, 0},
        PoolPlane{112, 112, 56, 56, 3, 3, 2, 2, 1, 1},
        PoolPlane{27, 27, 13, 13, 3, 3, 2, 2, 0, 0}}) {
    expect_one_pass_bits(p);
  }
}

TEST(MaxPoolPlane, TakesColumnStridesOneAndTwo) {
  PoolPlane p{111, 111, 55, 55, 3, 3, 2, 2, 0, 0};  // SqueezeNet's first pool
  if (!max_pool_plane_takes(p)) GTEST_SKIP() << "neither AVX-512 nor AVX2";
  p.sw = 1;
  EXPECT_TRUE(max_pool_plane_takes(p));
  p.sw = 3;
  EXPECT_FALSE(max_pool_plane_takes(p));
}

}  // namespace
}  // namespace symbolite::ops
