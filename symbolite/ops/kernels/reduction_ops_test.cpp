// Reduction kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json).
#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

TEST(ReductionOps, MatchPyTorch) { testing::run_op_cases("reduction", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
