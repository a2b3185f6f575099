// floor / ceil / trunc / round of tensors against PyTorch 1.13 (tests/fixtures/ops/
// op_cases.json, family "rounding"): halves, signed zero, NaN and infinities, float64, integer
// tensors kept as they are, in place, and bool refused with PyTorch's text.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(RoundingOps, MatchPyTorch) { testing::run_op_cases("rounding", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
