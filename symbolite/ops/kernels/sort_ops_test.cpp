// sort and argsort, stable or not, with ties, NaN and -0.0, so that equal values come out in
// PyTorch's order: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "sort"), values
// and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(SortOps, MatchPyTorch) { testing::run_op_cases("sort", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
