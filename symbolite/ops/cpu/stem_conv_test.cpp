// The row-by-row kernel for convolutions over few input channels (stem_conv.h), on geometries
// drawn at random (a fixed seed): 1-4 input channels, 1-64 outputs (whole and partial blocks
// of the tile), kernels 1-7 each way, strides 1 and 2, padding 0-3 each way, rows 1-70 wide,
// batches of 1 and 2. Against the definition in double, the same bits at one and two threads,
// and every output row reported done once. Models reach it through aten::conv2d, where the
// nn fixtures (tests/fixtures/fused_defs.py's stems) check it against PyTorch 1.13.
#include "symbolite/ops/cpu/stem_conv.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support/thread_setting.h"

namespace symbolite::ops::nn {
namespace {

// The convolution by its definition, in double.
std::vector<double> naive_stem(const std::vector<float>& in, const std::vector<float>& weight,
                               const ConvGeometry& g) {
  std::vector<double> out(static_cast<std::size_t>(g.n * g.o * g.oh * g.ow));
  for (std::int64_t n = 0; n < g.n; ++n) {
    for (std::int64_t o = 0; o < g.o; ++o) {
      for (std::int64_t y = 0; y < g.oh; ++y) {
        for (std::int64_t x = 0; x < g.ow; ++x) {
          double sum = 0;
          for (std::int64_t c = 0; c < g.c; ++c) {
            for (std::int64_t ky = 0; ky < g.kh; ++ky) {
              for (std::int64_t kx = 0; kx < g.kw; ++kx) {
                const std::int64_t iy = y * g.sh - g.ph + ky, ix = x * g.sw - g.pw + kx;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                sum +=
                    static_cast<double>(
                        weight[static_cast<std::size_t>(((o * g.c + c) * g.kh + ky) * g.kw + kx)]) *
                    in[static_cast<std::size_t>(((n * g.c + c) * g.h + iy) * g.w + ix)];
              }
            }
          }
          out[static_cast<std::size_t>(((n * g.o + o) * g.oh + y) * g.ow + x)] = sum;
        }
      }
    }
  }
  return out;
}

// The kernel's output at `threads` threads (NaN where it wrote nothing), counting in `done`
// how often each output row of each image was reported finished.
std::vector<float> run(const std::vector<float>& in, const std::vector<float>& weight,
                       const ConvGeometry& g, int threads, std::vector<int>& done) {
  testing::ThreadSetting setting(threads);
  std::vector<float> out(static_cast<std::size_t>(g.n * g.o * g.oh * g.ow), NAN);
  done.assign(static_cast<std::size_t>(g.n * g.oh), 0);
  stem_conv2d(in.data(), weight.data(), out.data(), g,
              [&](std::int64_t n, std::int64_t first, std::int64_t count, std::int64_t top,
                  std::int64_t rows) {
                EXPECT_EQ(first, 0);
                EXPECT_EQ(count, g.o);
                for (std::int64_t y = top; y < top + rows; ++y) {
                  ++done[static_cast<std::size_t>(n * g.oh + y)];
                }
              });
  return out;
}

TEST(StemConv, MatchesTheDefinitionOnRandomGeometries) {
  std::mt19937 random(1127);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(random);
  };
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  int checked = 0;
  while (checked < 120) {
    ConvGeometry g{};
    g.n = draw(1, 2);
    g.c = g.cg = draw(1, 4);
    g.o = draw(1, 64);
    g.groups = 1;
    g.h = draw(1, 30);
    g.w = draw(1, 70);
    g.kh = draw(1, 7);
    g.kw = draw(1, 7);
    g.sh = g.sw = draw(1, 2);
    g.ph = draw(0, 3);
    g.pw = draw(0, 3);
    g.dh = g.dw = 1;
    if (g.h + 2 * g.ph < g.kh || g.w + 2 * g.pw < g.kw || g.kh * g.kw == 1 ||
        g.c * g.kh * g.kw > 128) {
      continue;  // no output (PyTorch refuses), or not this kernel's
    }
    set_output_size(g);
    ASSERT_TRUE(stem_conv2d_shape(g));
    SCOPED_TRACE(::testing::Message()
                 << "n" << g.n << " c" << g.c << "->" << g.o << " " << g.h << "x" << g.w << " k"
                 << g.kh << "x" << g.kw << " s" << g.sh << " p" << g.ph << "," << g.pw);
    std::vector<float> in(static_cast<std::size_t>(g.n * g.c * g.h * g.w));
    std::vector<float> weight(static_cast<std::size_t>(g.o * g.c * g.kh * g.kw));
    for (float& x : in) x = value(random);
    for (float& x : weight) x = value(random);
    std::vector<int> done;
    const std::vector<float> one = run(in, weight, g, 1, done);
    for (int times : done) ASSERT_EQ(times, 1);
    const std::vector<double> exact = naive_stem(in, weight, g);
    const double bound = 1e-5 * static_cast<double>(g.c * g.kh * g.kw);
    for (std::size_t i = 0; i < exact.size(); ++i) {
      ASSERT_NEAR(one[i], exact[i], bound) << "element " << i;
    }
    const std::vector<float> two = run(in, weight, g, 2, done);
    for (int times : done) ASSERT_EQ(times, 1);
    ASSERT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)), 0);
    ++checked;
  }
}

TEST(StemConv, TakesFewInputsAndOutputsOnly) {
  // MobileNetV3's stem: 3 -> 16, 3x3, stride 2.
  ConvGeometry g{1, 3, 224, 224, 16, 3, 3, 3, 112, 112, 2, 2, 1, 1, 1, 1, 1};
  EXPECT_TRUE(stem_conv2d_shape(g));
  ConvGeometry wide = g;
  wide.o = 64;  // SqueezeNet 1.1's stem
  EXPECT_TRUE(stem_conv2d_shape(wide));
  wide.o = 65;  // untried: im2col + GEMM
  EXPECT_FALSE(stem_conv2d_shape(wide));
  ConvGeometry deep = g;
  deep.kh = deep.kw = 7;
  deep.c = deep.cg = 3;  // 147 inputs per output: oneDNN's direct convolution
  EXPECT_FALSE(stem_conv2d_shape(deep));
  ConvGeometry pointwise = g;
  pointwise.kh = pointwise.kw = 1;
  EXPECT_FALSE(stem_conv2d_shape(pointwise));
  ConvGeometry dilated = g;
  dilated.dh = dilated.dw = 2;
  EXPECT_FALSE(stem_conv2d_shape(dilated));
  ConvGeometry strided = g;
  strided.sh = strided.sw = 3;
  EXPECT_FALSE(stem_conv2d_shape(strided));
  ConvGeometry grouped = g;
  grouped.groups = 3;
  grouped.cg = 1;
  EXPECT_FALSE(stem_conv2d_shape(grouped));
}

}  // namespace
}  // namespace symbolite::ops::nn
