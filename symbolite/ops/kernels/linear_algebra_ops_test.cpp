// LinearAlgebra kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json).
#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

TEST(LinearAlgebraOps, MatchPyTorch) { testing::run_op_cases("linear_algebra", 1e-4, 1e-5); }

}  // namespace
}  // namespace symbolite::ops
