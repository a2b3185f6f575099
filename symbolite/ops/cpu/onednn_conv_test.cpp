// Dense convolutions on oneDNN's primitives (onednn_conv.h), through a model PyTorch 1.13
// wrote: tests/fixtures/models/dense_conv.ptl (dense_conv_defs.py) against what PyTorch's lite
// interpreter returns (goldens/dense_conv.json, make_dense_conv_model.py), at one and two
// threads; which convolutions take the path; and that the reordered weights go with the model.
#include "symbolite/ops/cpu/onednn_conv.h"

#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/interpreter.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/forward_call.h"
#include "tests/test_support/json_tensor.h"
#include "tests/test_support/nn_cases.h"
#include "tests/test_support/thread_setting.h"

namespace symbolite::ops::nn {
namespace {

using tensor::Tensor;

nlohmann::json calls() { return testing::load_golden("dense_conv")["calls"]; }

mobile::LoadedModel load() {
  return mobile::LoadedModel::load(testing::fixture_path("models/dense_conv.ptl"));
}

// The convolutions on the primitives per input shape (below).
const std::size_t kPlansPerShape = cpu_has_avx512f() ? 8 : 9;

Tensor run(const mobile::LoadedModel& model, const nlohmann::json& call, bool profiled = false) {
  return testing::run_forward_call(model, call, profiled).to_tensor();
}

TEST(OnednnConv, ResultsAreThoseOfPyTorchAtOneAndTwoThreads) {
  std::vector<Tensor> one_thread;
  for (int threads : {1, 2}) {
    testing::ThreadSetting setting(threads);
    const mobile::LoadedModel model = load();
    const std::size_t before = onednn_conv2d_plans();
    std::size_t i = 0;
    for (const auto& call : calls()) {
      SCOPED_TRACE(call["name"].get<std::string>() + " at " + std::to_string(threads));
      Tensor out = run(model, call);
      testing::nn_expect_close(out, testing::tensor_from_json(call["output"]));
      // Without the fused epilogue: the same bits (the epilogue follows the products).
      Tensor unfused = run(model, call, true);
      EXPECT_EQ(std::memcmp(out.raw_data(), unfused.raw_data(), out.nbytes()), 0);
      if (threads == 1) {
        one_thread.push_back(out);
      } else {
        testing::nn_expect_close(out, one_thread.at(i));
      }
      ++i;
    }
    // Per input shape: stem, a, b, grouped, dilated, asym, down and the conv1d take the path,
    // and pointwise (1x1 over 81 or 72 pixels into 128 channels) where the CPU lacks AVX-512
    // (with it, channels in lanes: pointwise_channel_lanes.h); the convolution whose weight
    // forward computes does not.
    EXPECT_EQ(onednn_conv2d_plans() - before, kPlansPerShape * 2);
  }
}

TEST(OnednnConv, ReorderedWeightsGoWithTheirModel) {
  const std::size_t before = onednn_conv2d_plans();
  {
    const mobile::LoadedModel model = load();
    run(model, calls()[0]);
    EXPECT_EQ(onednn_conv2d_plans(), before + kPlansPerShape);
  }
  EXPECT_EQ(onednn_conv2d_plans(), before);
}

// The convolution by its definition, in double (dilation 1, one group).
std::vector<double> naive(const std::vector<float>& in, const std::vector<float>& weight,
                          const ConvGeometry& g) {
  std::vector<double> out(static_cast<std::size_t>(g.n * g.o * g.oh * g.ow));
  std::size_t at = 0;
  for (std::int64_t n = 0; n < g.n; ++n) {
    for (std::int64_t o = 0; o < g.o; ++o) {
      for (std::int64_t y = 0; y < g.oh; ++y) {
        for (std::int64_t x = 0; x < g.ow; ++x, ++at) {
          for (std::int64_t c = 0; c < g.c; ++c) {
            for (std::int64_t ky = 0; ky < g.kh; ++ky) {
              for (std::int64_t kx = 0; kx < g.kw; ++kx) {
                const std::int64_t iy = y * g.sh - g.ph + ky, ix = x * g.sw - g.pw + kx;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                out[at] +=
                    static_cast<double>(
                        weight[static_cast<std::size_t>(((o * g.c + c) * g.kh + ky) * g.kw + kx)]) *
                    in[static_cast<std::size_t>(((n * g.c + c) * g.h + iy) * g.w + ix)];
              }
            }
          }
        }
      }
    }
  }
  return out;
}

// Outputs larger than a band's budget (1.3 MB, in 3 bands at one thread, 4 at two), of a
// channel count that ends in a partial block of 16, and a batch of two (blocks of channels):
// every value the definition's, every channel and row of every image reported done once.
TEST(OnednnConv, LargeOutputsInBandsOfRowsAndBlocksOfChannels) {
  std::mt19937 random(3);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  //                      n  c   h   w   o  cg  kh kw oh  ow  sh sw ph pw dh dw groups
  for (const ConvGeometry& g :
       {ConvGeometry{1, 16, 90, 90, 40, 16, 3, 3, 90, 90, 1, 1, 1, 1, 1, 1, 1},
        ConvGeometry{2, 20, 33, 41, 24, 20, 3, 3, 17, 21, 2, 2, 1, 1, 1, 1, 1}}) {
    std::vector<float> in(static_cast<std::size_t>(g.n * g.c * g.h * g.w));
    std::vector<std::uint8_t> weight_bytes(static_cast<std::size_t>(g.o * g.c * g.kh * g.kw) *
                                           sizeof(float));
    for (float& v : in) v = uniform(random);
    std::vector<float> weight(weight_bytes.size() / sizeof(float));
    for (float& v : weight) v = uniform(random);
    std::memcpy(weight_bytes.data(), weight.data(), weight_bytes.size());
    const Bytes weights = Bytes::from_vector(std::move(weight_bytes));
    const std::vector<double> want = naive(in, weight, g);
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::to_string(g.n) + " images at " + std::to_string(threads) + " threads");
      testing::ThreadSetting setting(threads);
      std::vector<float> out(want.size());
      std::vector<int> reported(static_cast<std::size_t>(g.n * g.o * g.oh));
      std::mutex mutex;
      ASSERT_TRUE(
          onednn_conv2d(in.data(), weights, out.data(), g,
                        [&](std::int64_t n, std::int64_t first, std::int64_t count,
                            std::int64_t top, std::int64_t rows) {
                          std::lock_guard lock(mutex);
                          for (std::int64_t o = first; o < first + count; ++o) {
                            for (std::int64_t y = top; y < top + rows; ++y) {
                              ++reported[static_cast<std::size_t>((n * g.o + o) * g.oh + y)];
                            }
                          }
                        }));
      EXPECT_EQ(reported, std::vector<int>(reported.size(), 1));
      for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(out[i], want[i], 1e-4 * (1.0 + std::abs(want[i]))) << "at " << i;
      }
    }
  }
}

TEST(OnednnConv, TakesDeepConvolutionsButOneByOneUnstridedAndDepthwise) {
  //                 n  c   h   w   o  cg  kh kw oh  ow  sh sw ph pw dh dw groups
  ConvGeometry g3x3{1, 16, 10, 10, 16, 16, 3, 3, 10, 10, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_TRUE(onednn_conv2d_shape(g3x3));  // 144 inputs per output
  ConvGeometry stem = g3x3;
  stem.c = stem.cg = 3;  // 27: im2col's
  EXPECT_FALSE(onednn_conv2d_shape(stem));
  ConvGeometry grouped = g3x3;
  grouped.c = 32;
  grouped.groups = 2;  // 16 channels a group: 144
  EXPECT_TRUE(onednn_conv2d_shape(grouped));
  grouped.groups = 4;  // 8 a group: 72
  grouped.cg = 8;
  EXPECT_FALSE(onednn_conv2d_shape(grouped));
  ConvGeometry depthwise{1, 16, 10, 10, 16, 1, 13, 13, 10, 10, 1, 1, 6, 6, 1, 1, 16};
  EXPECT_FALSE(onednn_conv2d_shape(depthwise));  // depthwise_conv.h's, whatever its kernel
  ConvGeometry one_by_one{1, 256, 10, 10, 16, 256, 1, 1, 10, 10, 1, 1, 0, 0, 1, 1, 1};
  EXPECT_FALSE(onednn_conv2d_shape(one_by_one));
  // Into 128 channels or more over 65-191 pixels that are no multiple of 16: the primitive.
  ConvGeometry ragged = one_by_one;
  ragged.o = 128;
  EXPECT_TRUE(onednn_conv2d_shape(ragged));  // 100 pixels
  ragged.h = ragged.w = ragged.oh = ragged.ow = 12;
  EXPECT_FALSE(onednn_conv2d_shape(ragged));  // 144
  ragged.h = ragged.w = ragged.oh = ragged.ow = 13;
  EXPECT_TRUE(onednn_conv2d_shape(ragged));  // 169
  ragged.h = ragged.w = ragged.oh = ragged.ow = 14;
  EXPECT_FALSE(onednn_conv2d_shape(ragged));  // 196
  one_by_one.sh = one_by_one.sw = 2;
  one_by_one.oh = one_by_one.ow = 5;
  EXPECT_TRUE(onednn_conv2d_shape(one_by_one));
}

}  // namespace
}  // namespace symbolite::ops::nn
