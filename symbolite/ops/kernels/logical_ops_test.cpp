// Boolean and bitwise kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json).
#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(LogicalOps, MatchPyTorch) { testing::run_op_cases("logical", 1e-6, 1e-7); }

// masked_fill_ and logical_or_ write into self, through a view into its base, as in PyTorch
// (what the reference cases, which compare outputs, cannot show).
TEST(LogicalOps, InPlaceFormsWriteThroughViews) {
  using tensor::Tensor;
  Tensor base = run_op("aten::view", {testing::arange(6), IValue::list({2, 3})}).to_tensor();
  IValue row = run_op("aten::select.int", {base, 0, 1});
  Tensor mask = Tensor::empty({3}, tensor::DType::kBool);
  mask.mutable_data<bool>()[1] = true;
  IValue out = run_op("aten::masked_fill_.Scalar", {row, mask, -1.0});
  EXPECT_EQ(out.to_tensor().storage().data(), base.storage().data());
  EXPECT_EQ(base.data<float>()[3], 3.0f);
  EXPECT_EQ(base.data<float>()[4], -1.0f);
  IValue first = run_op("aten::select.int", {base, 0, 0});
  run_op("aten::logical_or_", {first, mask});
  EXPECT_EQ(base.data<float>()[0], 0.0f);  // 0 or false
  EXPECT_EQ(base.data<float>()[1], 1.0f);  // 1 or true
  EXPECT_EQ(base.data<float>()[2], 1.0f);  // 2 or false: true, written as 1
}

}  // namespace
}  // namespace symbolite::ops
