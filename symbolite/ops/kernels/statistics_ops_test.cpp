// var, std, var_mean, std_mean (unbiased or a correction), logsumexp, prod and count_nonzero:
// against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "statistics"), values and
// PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(StatisticsOps, MatchPyTorch) { testing::run_op_cases("statistics", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
