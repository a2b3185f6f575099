// Kernels' Scalar arguments converted to their tensor's element type as PyTorch 1.13 converts
// them (tests/fixtures/ops/op_cases.json, family "scalar_argument"): a value the type cannot
// hold (NaN or an infinity for an integer, 1e300 for float, 300 for uint8) is c10's overflow
// error, not a saturated or undefined cast; a fraction truncates; a number wrapped as a tensor
// is promoted or cast unchecked.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(CheckedScalar, KernelScalarArgumentsConvertAsPyTorch) {
  testing::run_op_cases("scalar_argument", 1e-6, 0);
}

}  // namespace
}  // namespace symbolite::ops
