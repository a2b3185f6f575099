// Boolean and bitwise kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json).
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(LogicalOps, MatchPyTorch) { testing::run_op_cases("logical", 1e-6, 1e-7); }

}  // namespace
}  // namespace symbolite::ops
