// einsum against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "einsum"): batched
// attention products, implicit outputs, sums, outer and dot products, ellipsis broadcasting,
// three operands, diagonals ("ii->i", "iij->j") and PyTorch's errors.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(EinsumOps, MatchPyTorch) { testing::run_op_cases("einsum", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
