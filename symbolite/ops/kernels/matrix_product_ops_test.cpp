// tensordot, kron, addmv, addr, addbmm (and in place), linalg.multi_dot and chain_matmul: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "matrix_product"), values
// and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(MatrixProductOps, MatchPyTorch) { testing::run_op_cases("matrix_product", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
