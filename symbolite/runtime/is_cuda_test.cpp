// IS_CUDA (`x.is_cuda`, tests/fixtures/models/is_cuda.ptl made by make_is_cuda_model.py): the
// runtime takes the CPU branch as PyTorch does on a CPU tensor, and lift -> emit keeps the
// instruction, so the exported file runs the same.
#include <gtest/gtest.h>

#include <fstream>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/interpreter.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/reemit.h"

namespace symbolite::runtime {
namespace {

void expect_is_cuda_golden(const mobile::LoadedModel& model) {
  std::ifstream in(testing::fixture_path("goldens/is_cuda.json"));
  auto golden = nlohmann::json::parse(in);
  auto x = tensor::Tensor::empty(golden["input"]["shape"].get<std::vector<std::int64_t>>(),
                                 tensor::DType::kFloat32);
  for (std::size_t i = 0; i < golden["input"]["data"].size(); ++i) {
    x.mutable_data<float>()[i] = golden["input"]["data"][i].get<float>();
  }
  Interpreter interpreter(model);
  auto out = interpreter.run_method("forward", {ops::IValue(x)}).to_tensor().contiguous();
  ASSERT_EQ(static_cast<std::size_t>(out.numel()), golden["output"].size());
  for (std::size_t i = 0; i < golden["output"].size(); ++i) {
    EXPECT_FLOAT_EQ(out.data<float>()[i], golden["output"][i].get<float>());
  }
}

TEST(IsCuda, RunsTheCpuBranchAsPyTorchDoes) {
  expect_is_cuda_golden(mobile::LoadedModel::load(testing::fixture_path("models/is_cuda.ptl")));
}

TEST(IsCuda, SurvivesLiftAndEmit) {
  auto reemitted = testing::lift_emit_and_load("models/is_cuda.ptl");
  bool has_is_cuda = false;
  for (const auto& ins : reemitted.bytecode.functions.at(0).instructions)
    has_is_cuda |= ins.op == mobile::OpCode::kIsCuda;
  EXPECT_TRUE(has_is_cuda);
  expect_is_cuda_golden(reemitted.model);
}

}  // namespace
}  // namespace symbolite::runtime
