// The math module and Python number arithmetic (float_math_ops.cpp, number_ops.cpp) against
// PyTorch 1.13 run through TorchScript (tests/fixtures/ops/op_cases.json, family
// builtin_math): nan and inf arguments, 0 ** negative, floor of inf, divmod by zero, wrapping
// factorial and shifts, min/max with NaN.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(FloatMathOps, MatchPyTorch) { testing::run_op_cases("builtin_math", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
