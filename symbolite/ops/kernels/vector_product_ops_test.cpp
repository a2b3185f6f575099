// inner, vdot, linalg.vecdot, matrix powers and triangular solves: against PyTorch 1.13
// (tests/fixtures/ops/op_cases.json, family "vector_product"), values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(VectorProductOps, MatchPyTorch) { testing::run_op_cases("vector_product", 1e-5, 1e-5); }

}  // namespace
}  // namespace symbolite::ops
