// diagonal, diag, trace and eye: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family
// "diagonal"), values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(DiagonalOps, MatchPyTorch) { testing::run_op_cases("diagonal", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
