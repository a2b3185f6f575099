// Division with rounding against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family
// "division"): floor_divide, remainder, fmod and div's rounding modes on every dtype pairing,
// broadcasting, division by zero (IEEE for floats, ZeroDivisionError for integers), and
// int()/float()/bool()/len() of a tensor.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(DivisionOps, MatchPyTorch) { testing::run_op_cases("division", 1e-6, 1e-7); }

}  // namespace
}  // namespace symbolite::ops
