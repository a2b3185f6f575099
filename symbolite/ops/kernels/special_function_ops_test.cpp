// erfinv, lgamma, digamma, polygamma, mvlgamma, i0 and torch.special's functions and aliases:
// against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "special_function"), values
// at poles, ±1, ±inf and NaN included, and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(SpecialFunctionOps, MatchPyTorch) { testing::run_op_cases("special_function", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
