// Dense convolutions on oneDNN's primitives (onednn_conv.h), through a model PyTorch 1.13
// wrote: tests/fixtures/models/dense_conv.ptl (dense_conv_defs.py) against what PyTorch's lite
// interpreter returns (goldens/dense_conv.json, make_dense_conv_model.py), at one and two
// threads; which convolutions take the path; and that the reordered weights go with the model.
#include "symbolite/ops/cpu/onednn_conv.h"

#include <cstring>
#include <optional>

#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
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
    // Per input shape: stem, a, b, grouped, dilated, asym, down and the conv1d take the path;
    // the convolution whose weight forward computes does not.
    EXPECT_EQ(onednn_conv2d_plans() - before, 16U);
  }
}

TEST(OnednnConv, ReorderedWeightsGoWithTheirModel) {
  const std::size_t before = onednn_conv2d_plans();
  {
    const mobile::LoadedModel model = load();
    run(model, calls()[0]);
    EXPECT_EQ(onednn_conv2d_plans(), before + 8);
  }
  EXPECT_EQ(onednn_conv2d_plans(), before);
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
  one_by_one.sh = one_by_one.sw = 2;
  one_by_one.oh = one_by_one.ow = 5;
  EXPECT_TRUE(onednn_conv2d_shape(one_by_one));
}

}  // namespace
}  // namespace symbolite::ops::nn
