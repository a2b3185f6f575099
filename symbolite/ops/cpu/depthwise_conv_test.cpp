// The three depthwise kernels (channels interleaved in vector lanes, depthwise_interleaved.h;
// plane by plane, grouped_by_plane.h; row by row, depthwise_direct.h) on every float32
// depthwise case of tests/fixtures/ops/nn_cases.json (make_nn_refs.py: 3x3 to 7x7, strides,
// dilation, channel multipliers, planes from 7 to 45 wide, channel counts that leave a partial
// block): each within tolerance of PyTorch 1.13's output, and all the same bits in optimized
// builds, since depthwise_conv.cpp picks between them by speed alone. The row-by-row kernel
// also on geometries the fixtures lack (112-wide images, rows of 1 to 70 pixels, padding wider
// than the kernel, a conv1d's one-row planes), against the interleaved one.
#include "symbolite/ops/cpu/depthwise_conv.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/cpu/depthwise_direct.h"
#include "symbolite/ops/cpu/depthwise_interleaved.h"
#include "symbolite/ops/cpu/grouped_by_plane.h"
#include "tests/test_support/nn_cases.h"

namespace symbolite::ops::nn {
namespace {

using tensor::Tensor;

std::vector<std::int64_t> pair_arg(const nlohmann::json& args, std::size_t i, std::int64_t dflt) {
  if (args.size() <= i) return {dflt, dflt};
  auto v = args[i].get<std::vector<std::int64_t>>();
  return v.size() == 1 ? std::vector<std::int64_t>{v[0], v[0]} : v;
}

TEST(DepthwiseConv, EveryKernelGivesPyTorchsResultsInTheSameBits) {
  int checked = 0;
  int direct_checked = 0;
  for (const auto& c : testing::nn_cases("nn_cases.json")) {
    const std::string name = c["name"];
    if (c["op"] != "aten::conv2d" || name.find("depthwise") == std::string::npos ||
        !c.contains("output")) {
      continue;
    }
    SCOPED_TRACE(name);
    const auto& args = c["args"];
    const Tensor x = testing::nn_case_tensor(args[0]).contiguous();
    const Tensor wt = testing::nn_case_tensor(args[1]).contiguous();
    if (x.dtype() != tensor::DType::kFloat32 || x.dim() != 4) continue;
    const bool has_bias = args.size() > 2 && !args[2].contains("none");
    const Tensor bias = has_bias ? testing::nn_case_tensor(args[2]).contiguous() : Tensor();
    const auto stride = pair_arg(args, 3, 1), pad = pair_arg(args, 4, 0),
               dilation = pair_arg(args, 5, 1);
    const std::int64_t groups = args.size() > 6 ? args[6].get<std::int64_t>() : 1;
    ASSERT_EQ(groups, x.sizes()[1]);
    ConvGeometry g{x.sizes()[0],
                   x.sizes()[1],
                   x.sizes()[2],
                   x.sizes()[3],
                   wt.sizes()[0],
                   1,
                   wt.sizes()[2],
                   wt.sizes()[3],
                   0,
                   0,
                   stride[0],
                   stride[1],
                   pad[0],
                   pad[1],
                   dilation[0],
                   dilation[1],
                   groups};
    set_output_size(g);
    Tensor interleaved = Tensor::empty({g.n, g.o, g.oh, g.ow}, tensor::DType::kFloat32);
    Tensor by_plane = Tensor::empty({g.n, g.o, g.oh, g.ow}, tensor::DType::kFloat32);
    const float* b = has_bias ? bias.data<float>() : nullptr;
    depthwise_conv2d_interleaved(x.data<float>(), wt.data<float>(), b,
                                 interleaved.mutable_data<float>(), g, nullptr);
    grouped_conv2d_by_plane(x.data<float>(), wt.data<float>(), b, by_plane.mutable_data<float>(), g,
                            nullptr);
    const Tensor want =
        tensor::read_npy_file(testing::fixture_path("ops/" + c["output"].get<std::string>()));
    testing::nn_expect_close(interleaved, want);
    testing::nn_expect_close(by_plane, want);
    if (depthwise_direct_shape(g)) {
      Tensor direct = Tensor::empty({g.n, g.o, g.oh, g.ow}, tensor::DType::kFloat32);
      depthwise_conv2d_direct(x.data<float>(), wt.data<float>(), b, direct.mutable_data<float>(), g,
                              nullptr);
      testing::nn_expect_close(direct, want);
      EXPECT_EQ(std::memcmp(direct.raw_data(), by_plane.raw_data(), by_plane.nbytes()), 0);
      ++direct_checked;
    }
    // The same bits from every kernel, optimized or not (simd::multiply_add).
    EXPECT_EQ(std::memcmp(interleaved.raw_data(), by_plane.raw_data(), by_plane.nbytes()), 0);
    ++checked;
  }
  EXPECT_GE(checked, 9);
  EXPECT_GE(direct_checked, 5);
}

// `direct` and `want` hold the same bits, in optimized and unoptimized builds alike.
void expect_same(const std::vector<float>& direct, const std::vector<float>& want) {
  ASSERT_EQ(direct.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(std::memcmp(&direct[i], &want[i], sizeof(float)), 0)
        << "element " << i << ": " << direct[i] << " vs " << want[i];
  }
}

// The convolution by its definition, in double.
std::vector<float> naive(const std::vector<float>& in, const std::vector<float>& weight,
                         const float* bias, const ConvGeometry& g) {
  std::vector<float> out(static_cast<std::size_t>(g.n * g.o * g.oh * g.ow));
  const std::int64_t mult = g.o / g.c;
  for (std::int64_t n = 0; n < g.n; ++n) {
    for (std::int64_t o = 0; o < g.o; ++o) {
      for (std::int64_t y = 0; y < g.oh; ++y) {
        for (std::int64_t x = 0; x < g.ow; ++x) {
          double sum = bias == nullptr ? 0.0 : bias[o];
          for (std::int64_t ky = 0; ky < g.kh; ++ky) {
            for (std::int64_t kx = 0; kx < g.kw; ++kx) {
              const std::int64_t iy = y * g.sh - g.ph + ky, ix = x * g.sw - g.pw + kx;
              if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
              sum += static_cast<double>(
                         weight[static_cast<std::size_t>((o * g.kh + ky) * g.kw + kx)]) *
                     in[static_cast<std::size_t>(((n * g.c + o / mult) * g.h + iy) * g.w + ix)];
            }
          }
          out[static_cast<std::size_t>(((n * g.o + o) * g.oh + y) * g.ow + x)] =
              static_cast<float>(sum);
        }
      }
    }
  }
  return out;
}

// The row-by-row kernel on geometry `g` (output size set), with and without bias, and with a
// folded batch norm and activation: against the definition, and the interleaved kernel's bits.
void compare_row_by_row(const ConvGeometry& g) {
  ASSERT_TRUE(depthwise_direct_shape(g));
  std::vector<float> in(static_cast<std::size_t>(g.n * g.c * g.h * g.w));
  std::vector<float> weight(static_cast<std::size_t>(g.o * g.kh * g.kw));
  std::vector<float> bias(static_cast<std::size_t>(g.o));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.37f * static_cast<float>(i));
  for (std::size_t i = 0; i < weight.size(); ++i) {
    weight[i] = std::cos(0.11f * static_cast<float>(i));
  }
  for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = 0.25f * static_cast<float>(i) - 0.5f;
  const auto size = static_cast<std::size_t>(g.n * g.o * g.oh * g.ow);
  for (const float* b : std::vector<const float*>{bias.data(), nullptr}) {
    std::vector<float> direct(size, NAN), want(size, NAN);
    depthwise_conv2d_direct(in.data(), weight.data(), b, direct.data(), g, nullptr);
    depthwise_conv2d_interleaved(in.data(), weight.data(), b, want.data(), g, nullptr);
    const std::vector<float> exact = naive(in, weight, b, g);
    for (std::size_t i = 0; i < exact.size(); ++i) {
      ASSERT_NEAR(direct[i], exact[i], 1e-4f * (1.0f + std::fabs(exact[i]))) << "element " << i;
    }
    expect_same(direct, want);
  }
  // With a folded batch norm and an activation applied as each plane is finished.
  Epilogue fused;
  for (std::int64_t o = 0; o < g.o; ++o) {
    fused.scale.push_back(1.5f - 0.1f * static_cast<float>(o));
    fused.shift.push_back(0.2f * static_cast<float>(o) - 0.3f);
  }
  fused.activation = Activation::kHardswish;
  std::vector<float> direct(size, NAN), want(size, NAN);
  depthwise_conv2d_direct(in.data(), weight.data(), bias.data(), direct.data(), g, &fused);
  depthwise_conv2d_interleaved(in.data(), weight.data(), bias.data(), want.data(), g, &fused);
  expect_same(direct, want);
}

TEST(DepthwiseConv, RowByRowMatchesInterleavedOnOtherGeometries) {
  struct Case {
    std::int64_t n, c, mult, h, w, kh, kw, stride, pad;
  };
  const Case cases[] = {
      {1, 3, 1, 112, 112, 3, 3, 2, 1},  // MobileNet's first depthwise: 56 = 3.5 vectors a row
      {1, 2, 1, 112, 112, 3, 3, 1, 1},  // 112 = 7 vectors: whole chunks and a 3-vector tail
      {2, 3, 2, 20, 23, 5, 5, 2, 2},    // a batch, channel multiplier 2, odd width
      {1, 2, 1, 9, 1, 3, 3, 1, 1},      // one-pixel rows
      {1, 2, 1, 6, 2, 3, 3, 2, 1},      // stride 2 on two columns
      {1, 1, 1, 8, 70, 7, 7, 1, 3},     // 70: a partial last vector after a whole chunk
      {1, 2, 1, 10, 33, 3, 5, 1, 4},    // padding wider than the kernel, kernel not square
      {1, 2, 3, 12, 17, 1, 1, 2, 0},    // 1x1, multiplier 3
      {1, 1, 1, 5, 40, 9, 9, 2, 4},     // a kernel with no unrolled form
      {1, 2, 1, 7, 130, 3, 3, 2, 0},    // an even split of 2 x 64 + 2 columns, no padding
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "n" << k.n << " c" << k.c << "x" << k.mult << " " << k.h << "x" << k.w << " k"
                 << k.kh << "x" << k.kw << " s" << k.stride << " p" << k.pad);
    ConvGeometry g{k.n, k.c,      k.h,      k.w,   k.c * k.mult, 1, k.kh, k.kw, 0,
                   0,   k.stride, k.stride, k.pad, k.pad,        1, 1,    k.c};
    set_output_size(g);
    compare_row_by_row(g);
  }
}

// Geometries drawn at random (a fixed seed): rows 1-150 wide, kernels 1-9 each way, strides 1
// and 2, padding 0-5 each way, batches and multipliers. The row-by-row kernel's ring of packed
// rows and its phase split are where an edge case would read or write out of bounds (the
// sanitizer build runs this too).
TEST(DepthwiseConv, RowByRowMatchesInterleavedOnRandomGeometries) {
  std::mt19937 random(20261127);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(random);
  };
  int checked = 0;
  while (checked < 150) {
    ConvGeometry g{};
    g.n = draw(1, 2);
    g.c = draw(1, 3);
    g.o = g.c * draw(1, 2);
    g.cg = 1;
    g.groups = g.c;
    g.h = draw(1, 40);
    g.w = draw(1, 150);
    g.kh = draw(1, 9);
    g.kw = draw(1, 9);
    g.sh = g.sw = draw(1, 2);
    g.ph = draw(0, 5);
    g.pw = draw(0, 5);
    g.dh = g.dw = 1;
    if (g.h + 2 * g.ph < g.kh || g.w + 2 * g.pw < g.kw) continue;  // no output: PyTorch refuses
    set_output_size(g);
    SCOPED_TRACE(::testing::Message()
                 << "n" << g.n << " c" << g.c << "->" << g.o << " " << g.h << "x" << g.w << " k"
                 << g.kh << "x" << g.kw << " s" << g.sh << " p" << g.ph << "," << g.pw);
    compare_row_by_row(g);
    if (::testing::Test::HasFatalFailure()) return;
    ++checked;
  }
}

// A depthwise conv1d's kernels (1x3, 1x5: compiled for their taps), on one-row planes up to
// 2000 wide as a conv1d gives them, and on a few rows, at both strides and with padding from
// none to wider than the kernel.
TEST(DepthwiseConv, RowByRowTakesOneRowKernels) {
  for (const std::int64_t kw : {3, 5}) {
    for (const std::int64_t stride : {1, 2}) {
      for (const std::int64_t pad : {0, 1, 2, 6}) {
        for (const std::int64_t h : {1, 3}) {
          for (const std::int64_t w : {5, 17, 130, 2000}) {
            ConvGeometry g{2, 3, h, w, 6, 1, 1, kw, 0, 0, stride, stride, 0, pad, 1, 1, 3};
            if (w + 2 * pad < kw) continue;
            set_output_size(g);
            SCOPED_TRACE(::testing::Message()
                         << "1x" << kw << " s" << stride << " p" << pad << " " << h << "x" << w);
            compare_row_by_row(g);
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace symbolite::ops::nn
