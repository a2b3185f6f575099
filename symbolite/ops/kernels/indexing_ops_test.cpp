// Indexing kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json).
#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

TEST(IndexingOps, MatchPyTorch) { testing::run_op_cases("indexing", 1e-6, 1e-7); }

TEST(IndexingOps, ResultsAreCopies) {
  Tensor x = run_op("aten::zeros", {IValue::list({3, 4})}).to_tensor();
  Tensor idx = Tensor::empty({2}, DType::kInt64);
  Tensor a = run_op("aten::index.Tensor", {x, IValue::list({idx})}).to_tensor();
  Tensor b = run_op("aten::index_select", {x, 0, idx}).to_tensor();
  EXPECT_NE(a.storage().data(), x.storage().data());
  EXPECT_NE(b.storage().data(), x.storage().data());
  EXPECT_EQ(a.sizes(), (std::vector<std::int64_t>{2, 4}));
}

TEST(IndexingOps, AllNoneIndicesAreRefusedClearly) {
  Tensor x = run_op("aten::zeros", {IValue::list({3, 4})}).to_tensor();
  try {
    run_op("aten::index.Tensor", {x, IValue::list({IValue()})});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
  }
}

}  // namespace
}  // namespace symbolite::ops
