// List methods (list_methods_ops.cpp, and slice.t) against PyTorch 1.13 run through
// TorchScript (tests/fixtures/ops/op_cases.json, family builtin_list): the in-place ones are
// checked on the list they mutate ("after"), sorting with NaN and negative zero, errors.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(ListMethodsOps, MatchPyTorch) { testing::run_op_cases("builtin_list", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
