// matrix_exp and linalg.matrix_exp (every polynomial degree, the scaling and squaring,
// batches of mixed norms): against PyTorch 1.13 (op_cases.json, family "matrix_exp"), values
// and PyTorch's error texts.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(MatrixExpOps, MatchPyTorch) { testing::run_op_cases("matrix_exp", 1e-5, 1e-6); }

// An infinite 1-norm (an infinite element; float32 columns summing past FLT_MAX) asks for
// infinitely many squarings, a count PyTorch converts to int64 undefined: every element NaN,
// as PyTorch 1.13 gives.
TEST(MatrixExpOps, InfiniteNormGivesNan) {
  using tensor::DType;
  using tensor::Tensor;
  const float inf = std::numeric_limits<float>::infinity();
  for (const std::vector<float>& values :
       {std::vector<float>{inf, 0, 0, 1}, std::vector<float>{1, 0, 0, -inf},
        std::vector<float>{3e38F, 3e38F, 0, 0}}) {
    Tensor a = Tensor::empty({2, 2}, DType::kFloat32);
    std::copy(values.begin(), values.end(), a.mutable_data<float>());
    const Tensor e = run_op("aten::linalg_matrix_exp", {a}).to_tensor();
    for (std::int64_t i = 0; i < 4; ++i) {
      EXPECT_TRUE(std::isnan(e.data<float>()[i])) << values[0] << " element " << i;
    }
  }
}

}  // namespace
}  // namespace symbolite::ops
