// cartesian_prod and combinations: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "combination"), values
// and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(CombinationOps, MatchPyTorch) { testing::run_op_cases("combination", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
