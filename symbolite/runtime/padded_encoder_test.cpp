// nn.TransformerEncoder under a key padding mask (tests/fixtures/models/padded_encoder.ptl,
// make_padded_encoder_model.py): PyTorch 1.13 runs it on nested tensors
// (ops/kernels/nested_tensor_ops.cpp). Every call gives the output of PyTorch's lite
// interpreter: its shape exactly (shorter than the input when every sequence is padded) and
// its values, zeros past each sequence included; lift -> emit runs the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/interpreter.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/json_tensor.h"
#include "tests/test_support/reemit.h"

namespace symbolite::runtime {
namespace {

void expect_pytorchs_outputs(const mobile::LoadedModel& model) {
  std::ifstream in(testing::fixture_path("goldens/padded_encoder.json"));
  const auto golden = nlohmann::json::parse(in);
  ASSERT_EQ(golden.at("calls").size(), 4u);
  Interpreter interpreter(model);
  for (const auto& call : golden.at("calls")) {
    SCOPED_TRACE(call.at("name").get<std::string>());
    std::vector<ops::IValue> inputs;
    for (const auto& input : call.at("inputs")) {
      inputs.emplace_back(testing::tensor_from_json(input));
    }
    const tensor::Tensor want = testing::tensor_from_json(call.at("output"));
    const tensor::Tensor got =
        interpreter.run_method("forward", std::move(inputs)).to_tensor().contiguous();
    ASSERT_EQ(got.sizes(), want.sizes());
    EXPECT_EQ(got.nested_lengths(), nullptr);  // padded back: a plain tensor
    const float* g = got.data<float>();
    const float* w = want.data<float>();
    float largest = 0;
    for (std::int64_t i = 0; i < want.numel(); ++i) largest = std::max(largest, std::abs(w[i]));
    for (std::int64_t i = 0; i < want.numel(); ++i) {
      // Padding is exactly 0; values agree to float32 rounding of a different summation order.
      if (w[i] == 0.0f) {
        EXPECT_EQ(g[i], 0.0f) << "element " << i;
      }
      EXPECT_NEAR(g[i], w[i], 1e-5f * largest) << "element " << i;
    }
  }
}

TEST(PaddedEncoder, RunsTheNestedFastPathAsPyTorchDoes) {
  expect_pytorchs_outputs(
      mobile::LoadedModel::load(testing::fixture_path("models/padded_encoder.ptl")));
}

TEST(PaddedEncoder, SurvivesLiftAndEmit) {
  expect_pytorchs_outputs(testing::lift_emit_and_load("models/padded_encoder.ptl").model);
}

}  // namespace
}  // namespace symbolite::runtime
