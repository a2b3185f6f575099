// A traced model (tests/fixtures/models/traced_device.ptl, make_traced_device_model.py): its
// constants hold torch.device("cpu") (the pickle global torch.device) and its code the
// NUM_TO_TENSOR instruction. It loads, runs with the output of PyTorch 1.13's lite
// interpreter, and survives lift -> emit (the device constant pickled back as PyTorch does).
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/interpreter.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/json_tensor.h"
#include "tests/test_support/reemit.h"

namespace symbolite::runtime {
namespace {

void expect_traced_device_golden(const mobile::LoadedModel& model) {
  std::ifstream in(testing::fixture_path("goldens/traced_device.json"));
  const auto golden = nlohmann::json::parse(in);
  Interpreter interpreter(model);
  const tensor::Tensor got =
      interpreter
          .run_method("forward", {ops::IValue(testing::tensor_from_json(golden.at("input")))})
          .to_tensor()
          .contiguous();
  const tensor::Tensor want = testing::tensor_from_json(golden.at("output"));
  ASSERT_EQ(got.sizes(), want.sizes());
  ASSERT_EQ(got.dtype(), want.dtype());
  for (std::int64_t i = 0; i < want.numel(); ++i) {
    EXPECT_FLOAT_EQ(got.data<float>()[i], want.data<float>()[i]) << "element " << i;
  }
}

bool has_num_to_tensor(const mobile::Bytecode& bytecode) {
  for (const auto& fn : bytecode.functions) {
    for (const auto& ins : fn.instructions) {
      if (ins.op == mobile::OpCode::kNumToTensor) return true;
    }
  }
  return false;
}

TEST(TracedDevice, RunsAsPyTorchDoes) {
  expect_traced_device_golden(
      mobile::LoadedModel::load(testing::fixture_path("models/traced_device.ptl")));
}

TEST(TracedDevice, SurvivesLiftAndEmit) {
  auto reemitted = testing::lift_emit_and_load("models/traced_device.ptl");
  EXPECT_TRUE(has_num_to_tensor(reemitted.bytecode));
  expect_traced_device_golden(reemitted.model);
}

}  // namespace
}  // namespace symbolite::runtime
