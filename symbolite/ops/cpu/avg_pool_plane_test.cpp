// The vectorized float32 average pooling (avg_pool_plane.h) against PyTorch's CPU loop for one
// output (`sum = 0; sum += tap` over the window's rows then columns inside the input; `out = 0;
// out += sum / divisor`), bit for bit: on geometries drawn at random (a fixed seed) with
// windows of 1-5 each way, row strides 1-3, column strides 1 and 2, padding up to half the
// window and the ceil-mode column that starts in the right padding, over planes where -0.0,
// infinities, NaNs and the smallest subnormals (whose averages underflow to zero) are common
// (a NaN result matches any NaN: its sign is the compiler's choice of operand order).
// Models reach it through aten::avg_pool2d, whose nn cases hold it to PyTorch 1.13's outputs.
#include "symbolite/ops/cpu/avg_pool_plane.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support/pool_geometry.h"

namespace symbolite::ops {
namespace {

// PyTorch's cpu_avg_pool for one plane, with the divisor the window's taps inside the input
// (count_include_pad=False); `divisors` gets each output's.
std::vector<float> reference(const std::vector<float>& in, const PoolPlane& p,
                             std::vector<float>& divisors) {
  std::vector<float> out(static_cast<std::size_t>(p.oh * p.ow));
  divisors.assign(out.size(), 1.0f);
  for (std::int64_t oy = 0; oy < p.oh; ++oy) {
    for (std::int64_t ox = 0; ox < p.ow; ++ox) {
      const std::int64_t y0 = std::max<std::int64_t>(oy * p.sh - p.ph, 0);
      const std::int64_t y1 = std::min(oy * p.sh - p.ph + p.kh, p.h);
      const std::int64_t x0 = std::max<std::int64_t>(ox * p.sw - p.pw, 0);
      const std::int64_t x1 = std::min(ox * p.sw - p.pw + p.kw, p.w);
      const auto at = static_cast<std::size_t>(oy * p.ow + ox);
      out[at] = 0.0f;
      if (y0 >= y1 || x0 >= x1) continue;
      float sum = 0.0f;
      for (std::int64_t y = y0; y < y1; ++y) {
        for (std::int64_t x = x0; x < x1; ++x) sum += in[static_cast<std::size_t>(y * p.w + x)];
      }
      divisors[at] = static_cast<float>((y1 - y0) * (x1 - x0));
      out[at] += sum / divisors[at];
    }
  }
  return out;
}

TEST(AvgPoolPlane, GivesPyTorchsBitsOnRandomGeometries) {
  if (!avg_pool_plane_takes({4, 4, 2, 2, 2, 2, 2, 2, 0, 0})) GTEST_SKIP() << "no AVX-512";
  std::mt19937 random(1128);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(random);
  };
  const float tiny = std::numeric_limits<float>::denorm_min();
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            tiny,
                            -tiny,
                            -tiny};
  std::vector<float> scratch;
  int checked = 0;
  while (checked < 300) {
    const PoolPlane p = testing::draw_pool_plane(random);
    ASSERT_TRUE(avg_pool_plane_takes(p));
    SCOPED_TRACE(::testing::Message()
                 << p.h << "x" << p.w << " k" << p.kh << "x" << p.kw << " s" << p.sh << "," << p.sw
                 << " p" << p.ph << "," << p.pw << " -> " << p.oh << "x" << p.ow);
    // Mostly ordinary values, whose sums round differently in another order.
    std::vector<float> in(static_cast<std::size_t>(p.h * p.w));
    for (float& v : in) {
      v = draw(0, 5) == 0 ? specials[draw(0, 7)] : static_cast<float>(draw(-1000, 1000)) / 7.0f;
    }
    std::vector<float> divisors;
    const std::vector<float> want = reference(in, p, divisors);
    std::vector<float> got(want.size(), 12345.0f);
    avg_pool_plane_f32(in.data(), got.data(), p, divisors.data(), scratch);
    for (std::size_t k = 0; k < got.size(); ++k) {
      // A NaN's sign and payload come from the operand order the compiler gives an addition
      // of two NaNs (inf + -inf makes one), in PyTorch's build and in this test's alike: any
      // NaN stands for any other.
      if (std::isnan(want[k])) {
        ASSERT_TRUE(std::isnan(got[k])) << k;
      } else {
        ASSERT_EQ(std::memcmp(&got[k], &want[k], sizeof(float)), 0)
            << k << ": " << got[k] << " vs " << want[k];
      }
    }
    ++checked;
  }
}

TEST(AvgPoolPlane, ATinyNegativeAverageEndsPositiveZero) {
  if (!avg_pool_plane_takes({4, 4, 2, 2, 2, 2, 2, 2, 0, 0})) GTEST_SKIP() << "no AVX-512";
  // -denorm_min / 9 underflows to -0.0; PyTorch's `out = 0; out += mean` makes it +0.0.
  const PoolPlane p{3, 3, 1, 1, 3, 3, 1, 1, 0, 0};
  std::vector<float> in(9, 0.0f);
  in[4] = -std::numeric_limits<float>::denorm_min();
  const float divisor = 9.0f;
  float out = 1.0f;
  std::vector<float> scratch;
  avg_pool_plane_f32(in.data(), &out, p, &divisor, scratch);
  EXPECT_EQ(out, 0.0f);
  EXPECT_FALSE(std::signbit(out));
}

}  // namespace
}  // namespace symbolite::ops
