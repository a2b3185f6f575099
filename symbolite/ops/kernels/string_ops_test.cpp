// String methods (string_ops.cpp) against PyTorch 1.13 run through TorchScript
// (tests/fixtures/ops/op_cases.json, family builtin_str): case maps and predicates, padding,
// rfind/count, slicing with steps, ord/chr, float(str) and %-formatting with its errors.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(StringOps, MatchPyTorch) { testing::run_op_cases("builtin_str", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
