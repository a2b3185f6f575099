// aten::tensor of lists and of one number, with and without a dtype: against PyTorch 1.13
// (tests/fixtures/ops/op_cases.json, family "tensor_from_data"), values and PyTorch's error
// texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(TensorFromDataOps, MatchPyTorch) { testing::run_op_cases("tensor_from_data", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
