// matrix_exp and linalg.matrix_exp (every polynomial degree, the scaling and squaring,
// batches of mixed norms): against PyTorch 1.13 (op_cases.json, family "matrix_exp"), values
// and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(MatrixExpOps, MatchPyTorch) { testing::run_op_cases("matrix_exp", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
