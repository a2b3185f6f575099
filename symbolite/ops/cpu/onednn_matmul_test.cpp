// Products by file weights on oneDNN's matmul primitive (onednn_matmul.h), through a model
// PyTorch 1.13 wrote: tests/fixtures/models/file_linear.ptl (file_linear_defs.py) against
// what PyTorch's lite interpreter returns (goldens/file_linear.json,
// make_file_linear_model.py) at one and two threads; which products take the path, the limit
// on row counts per weight, and that the reordered weights go with the model. And 1x1
// convolutions over short images on the primitive reading the file's weights in place
// (onednn_matmul_by_file_rows) or with output channels in the vector lanes
// (pointwise_channel_lanes.h): tests/fixtures/models/short_rows.ptl (short_rows_defs.py,
// goldens/short_rows.json).
#include "symbolite/ops/cpu/onednn_matmul.h"

#include <gtest/gtest.h>

#include <cstring>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/cpu/cpu_features.h"
#include "symbolite/ops/cpu/pointwise_channel_lanes.h"
#include "symbolite/runtime/interpreter.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/forward_call.h"
#include "tests/test_support/json_tensor.h"
#include "tests/test_support/nn_cases.h"
#include "tests/test_support/thread_setting.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;

nlohmann::json calls() { return testing::load_golden("file_linear")["calls"]; }

mobile::LoadedModel load() {
  return mobile::LoadedModel::load(testing::fixture_path("models/file_linear.ptl"));
}

Tensor run(const mobile::LoadedModel& model, const nlohmann::json& call) {
  runtime::Interpreter interpreter(model);
  return interpreter.run_method("forward", {IValue(testing::tensor_from_json(call["inputs"][0]))})
      .to_tensor();
}

TEST(OnednnMatmul, ResultsAreThoseOfPyTorchAtOneAndTwoThreads) {
  for (int threads : {1, 2}) {
    testing::ThreadSetting setting(threads);
    const mobile::LoadedModel model = load();
    for (const auto& call : calls()) {
      SCOPED_TRACE(call["name"].get<std::string>() + " at " + std::to_string(threads));
      testing::nn_expect_close(run(model, call), testing::tensor_from_json(call["output"]));
    }
  }
}

TEST(OnednnMatmul, CompilesAKernelForUpToEightRowCountsPerWeight) {
  testing::ThreadSetting setting(1);
  const std::size_t before = onednn_matmul_plans();
  {
    const mobile::LoadedModel model = load();
    for (const auto& call : calls()) run(model, call);
    // Products of at least 2^18 multiply-adds: up (L x 32 x 512) and down at every length but
    // the ninth distinct one (8 each), proj (L x 32 x 256) from 32 rows on (6 lengths), head
    // (L x 256 x 40) from 26 rows on (8); head on one row is gemv.h's. oneDNN 2.6's JIT
    // matmul (brgemm) needs AVX-512: without, it offers its sgemm-based one, which the path
    // declines, and every product is sgemm's.
    EXPECT_EQ(onednn_matmul_plans() - before, cpu_has_avx512f() ? 30U : 0U);
  }
  EXPECT_EQ(onednn_matmul_plans(), before);  // gone with the model's file
}

TEST(OnednnMatmul, OneByOneConvolutionsOnShortImagesReadTheFilesWeights) {
  const nlohmann::json short_calls = testing::load_golden("short_rows")["calls"];
  std::vector<Tensor> one_thread;
  for (int threads : {1, 2}) {
    testing::ThreadSetting setting(threads);
    const std::size_t before = onednn_matmul_plans();
    const std::size_t lanes_before = pointwise_channel_lanes_plans();
    {
      const mobile::LoadedModel model =
          mobile::LoadedModel::load(testing::fixture_path("models/short_rows.ptl"));
      std::size_t i = 0;
      for (const auto& call : short_calls) {
        SCOPED_TRACE(call["name"].get<std::string>() + " at " + std::to_string(threads));
        const Tensor out = testing::run_forward_call(model, call).to_tensor();
        testing::nn_expect_close(out, testing::tensor_from_json(call["output"]));
        // Unfused, the batch norm runs on its own after the product: the same bits.
        const Tensor unfused =
            testing::run_forward_call(model, call, /*profiled=*/true).to_tensor();
        EXPECT_EQ(std::memcmp(out.raw_data(), unfused.raw_data(), out.nbytes()), 0);
        if (threads == 1) {
          one_thread.push_back(out);
        } else {
          EXPECT_EQ(std::memcmp(out.raw_data(), one_thread.at(i).raw_data(), out.nbytes()), 0);
        }
        ++i;
      }
      // With AVX-512 the products whose 512 or 40 output channels fill their vectors' lanes
      // better than the pixels would run with channels in lanes (pointwise_channel_lanes.h):
      // expand and project on the 7x7 image (49 of 64 lanes), expand on the 6x5 batch and the
      // 8x8 image; project there (40 channels in 48 lanes against 30 in 32 and 64 in 64) on
      // oneDNN. The 9x9 image (81 pixels) is sgemm's. Without AVX-512 all are sgemm's (oneDNN
      // 2.6 has no JIT matmul there).
      const bool avx512 = cpu_has_avx512f();
      EXPECT_EQ(pointwise_channel_lanes_plans() - lanes_before, avx512 ? 2U : 0U);
      EXPECT_EQ(onednn_matmul_plans() - before, avx512 ? 2U : 0U);
    }
    // Gone with the model's file.
    EXPECT_EQ(onednn_matmul_plans(), before);
    EXPECT_EQ(pointwise_channel_lanes_plans(), lanes_before);
  }
}

}  // namespace
}  // namespace symbolite::ops
