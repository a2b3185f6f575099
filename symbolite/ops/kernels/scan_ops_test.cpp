// cumsum, cumprod (in place too), cummax and cummin, with ties, NaN, integer and bool inputs:
// against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "scan"), values and PyTorch's
// error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(ScanOps, MatchPyTorch) { testing::run_op_cases("scan", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
