// element_size, stride, result_type, can_cast, promote_types, implicit numbers and strided views: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "tensor_info"), values
// and PyTorch's error texts.
#include <gtest/gtest.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(TensorInfoOps, MatchPyTorch) { testing::run_op_cases("tensor_info", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops

namespace symbolite::ops {
namespace {

// x.stride() of a transposed view is its own strides (PyTorch's: [1, 3] for a 4 x 3 matrix
// transposed); torch.ops cannot call aten::stride, so no reference case has it.
TEST(TensorInfoOps, StrideOfAViewIsItsOwn) {
  const IValue x(tensor::Tensor::empty({4, 3}, tensor::DType::kFloat32));
  const IValue t = run_op("aten::t", {x});
  EXPECT_EQ(int_list_arg(run_op("aten::stride", {t})), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(run_op("aten::stride.int", {t, IValue(std::int64_t{-1})}).to_int(), 3);
}

}  // namespace
}  // namespace symbolite::ops
