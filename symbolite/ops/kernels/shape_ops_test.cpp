// Shape kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json).
#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

TEST(ShapeOps, TracedModelOperatorsMatchPyTorch) { testing::run_op_cases("traced", 0, 0); }

TEST(ShapeOps, MatchPyTorch) { testing::run_op_cases("shape", 1e-5, 1e-6); }

// linspace and logspace: PyTorch's values bit for bit (float32, float64 and integers).
TEST(ShapeOps, RangesMatchPyTorchExactly) { testing::run_op_cases("range", 0, 0); }

TEST(ShapeOps, ViewsShareStorageAndCopiesDoNot) {
  Tensor x = run_op("aten::zeros", {IValue::list({3, 4})}).to_tensor();
  for (const char* op : {"aten::t", "aten::contiguous"}) {
    EXPECT_EQ(run_op(op, {x}).to_tensor().storage().data(), x.storage().data()) << op;
  }
  EXPECT_EQ(run_op("aten::view", {x, IValue::list({12})}).to_tensor().storage().data(),
            x.storage().data());
  EXPECT_EQ(run_op("aten::select.int", {x, 1, 2}).to_tensor().storage_offset(), 2);
  Tensor xt = run_op("aten::t", {x}).to_tensor();
  // reshape copies when no view exists; contiguous copies a transposed tensor
  EXPECT_NE(run_op("aten::reshape", {xt, IValue::list({12})}).to_tensor().storage().data(),
            x.storage().data());
  EXPECT_NE(run_op("aten::contiguous", {xt}).to_tensor().storage().data(), x.storage().data());
  auto chunks = run_op("aten::chunk", {x, 2, 1}).to_list();
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[1].to_tensor().storage_offset(), 2);
  auto parts = run_op("aten::split.sizes", {x, IValue::list({1, 3}), 1}).to_list();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].to_tensor().storage().data(), x.storage().data());
  EXPECT_EQ(parts[1].to_tensor().storage_offset(), 1);
  Tensor row = run_op("aten::select.int", {x, 0, 1}).to_tensor();
  Tensor expanded = run_op("aten::expand", {row, IValue::list({2, 4})}).to_tensor();
  EXPECT_EQ(expanded.storage().data(), x.storage().data());
  EXPECT_EQ(expanded.storage_offset(), 4);
  EXPECT_EQ(expanded.strides(), (std::vector<std::int64_t>{0, 1}));
}

// PyTorch's in-place shape changes restride the tensor object: every value holding it sees
// the new shape, a view taken before keeps its own, and the data is shared.
TEST(ShapeOps, InPlaceShapeChangesReachEveryHolder) {
  IValue x(run_op("aten::zeros", {IValue::list({2, 3})}).to_tensor());
  IValue alias = x;  // NOLINT(performance-unnecessary-copy-initialization): `y = x` in a model
  IValue before = run_op("aten::view", {x, IValue::list({6})});
  Stack s{x, IValue(0)};
  default_registry().find("aten::unsqueeze_")->kernel(s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(&s[0].to_tensor(), &x.to_tensor());
  EXPECT_EQ(alias.to_tensor().sizes(), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(before.to_tensor().sizes(), (std::vector<std::int64_t>{6}));
  EXPECT_EQ(alias.to_tensor().storage().data(), before.to_tensor().storage().data());
  run_op("aten::squeeze_.dim", {x, 0});
  EXPECT_EQ(alias.to_tensor().sizes(), (std::vector<std::int64_t>{2, 3}));
  run_op("aten::unsqueeze_", {x, -1});
  run_op("aten::squeeze_", {alias});
  EXPECT_EQ(x.to_tensor().sizes(), (std::vector<std::int64_t>{2, 3}));
}

}  // namespace
}  // namespace symbolite::ops
