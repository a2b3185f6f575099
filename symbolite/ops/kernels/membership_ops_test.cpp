// isin (every overload) and isreal: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family
// "membership"), values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(MembershipOps, MatchPyTorch) { testing::run_op_cases("membership", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
