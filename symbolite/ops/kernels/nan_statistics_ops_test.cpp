// nansum, nanmean, aminmax, cov and corrcoef: against PyTorch 1.13
// (tests/fixtures/ops/op_cases.json, family "nan_statistics"), values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(NanStatisticsOps, MatchPyTorch) { testing::run_op_cases("nan_statistics", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
