// clone, to.dtype and zeros_like against PyTorch 1.13 (tests/fixtures/ops/op_cases.json),
// plus their layouts, which the reference files (saved contiguous) cannot show.
#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

Tensor zeros(Sizes sizes) {
  return run_op("aten::zeros", {IValue::list(IValueList(sizes.begin(), sizes.end()))}).to_tensor();
}

TEST(CopyOps, MatchPyTorch) { testing::run_op_cases("copy", 1e-6, 1e-7); }

// Strides as PyTorch 1.13 gives them (memory_format None: preserve).
TEST(CopyOps, KeepTheInputsLayout) {
  Tensor xt = run_op("aten::t", {zeros({2, 3})}).to_tensor();  // [3, 2], strides [1, 3]
  for (const char* op : {"aten::clone", "aten::zeros_like"}) {
    Tensor out = run_op(op, {xt}).to_tensor();
    EXPECT_EQ(out.strides(), (Sizes{1, 3})) << op;
    EXPECT_NE(out.storage().data(), xt.storage().data()) << op;
  }
  EXPECT_EQ(run_op("aten::to.dtype", {xt, 3}).to_tensor().strides(), (Sizes{1, 3}));
  // Not dense: dense strides in the same order (x[:, ::2].t() of a [4, 6] tensor).
  Tensor stepped =
      run_op("aten::slice.Tensor", {zeros({4, 6}), 1, IValue(), IValue(), 2}).to_tensor();
  Tensor st = run_op("aten::t", {stepped}).to_tensor();  // [3, 4], strides [2, 6]
  EXPECT_EQ(run_op("aten::clone", {st}).to_tensor().strides(), (Sizes{1, 3}));
  // Expanded: contiguous.
  Tensor ex = run_op("aten::expand", {zeros({1, 3}), IValue::list({2, 3})}).to_tensor();
  EXPECT_EQ(run_op("aten::clone", {ex}).to_tensor().strides(), (Sizes{3, 1}));
  // memory_format=contiguous
  EXPECT_EQ(run_op("aten::clone", {xt, 0}).to_tensor().strides(), (Sizes{2, 1}));
}

TEST(CopyOps, ToTheSameDtypeIsAnAlias) {
  IValue x(zeros({2, 3}));
  Stack s{x, IValue(6)};
  s.push_back(IValue(false));
  s.push_back(IValue(false));
  s.push_back(IValue());
  default_registry().find("aten::to.dtype")->kernel(s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(&s[0].to_tensor(), &x.to_tensor());
  Tensor copied = run_op("aten::to.dtype", {x, 6, false, true}).to_tensor();
  EXPECT_NE(copied.storage().data(), x.to_tensor().storage().data());
}

}  // namespace
}  // namespace symbolite::ops
