// torch.norm against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "norm"): p None,
// 1, 2, 3.5, 0, inf, -inf and negative, over one or two dims with keepdim, float64, the whole
// tensor, and integer input refused with PyTorch's text. Float sums: compared to rounding.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(NormOps, MatchPyTorch) { testing::run_op_cases("norm", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
