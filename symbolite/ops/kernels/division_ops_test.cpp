// Division with rounding against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family
// "division"): floor_divide, remainder, fmod and div's rounding modes on every dtype pairing,
// broadcasting, division by zero (IEEE for floats, ZeroDivisionError for integers), and
// int()/float()/bool()/len() of a tensor.
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(DivisionOps, MatchPyTorch) { testing::run_op_cases("division", 1e-6, 1e-7); }

// PyTorch 1.13 dies of SIGFPE on the most negative int64 divided by -1 (the CPU's division
// trap), so there is no reference: symbolite gives the two's-complement wrap, as NumPy does,
// and a remainder of 0 (README, "deliberately differs").
TEST(DivisionOps, MostNegativeByMinusOneWrapsInsteadOfTrapping) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  tensor::Tensor x = tensor::Tensor::empty({2}, tensor::DType::kInt64);
  x.mutable_data<std::int64_t>()[0] = kMin;
  x.mutable_data<std::int64_t>()[1] = 7;
  auto values = [](const IValue& v) {
    const tensor::Tensor& t = v.to_tensor();
    return std::vector<std::int64_t>(t.data<std::int64_t>(), t.data<std::int64_t>() + 2);
  };
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(values(run_op("aten::floor_divide.Scalar", {x, -1})), (V{kMin, -7}));
  EXPECT_EQ(values(run_op("aten::div.Scalar_mode", {x, -1, IValue::string("trunc")})),
            (V{kMin, -7}));
  EXPECT_EQ(values(run_op("aten::remainder.Scalar", {x, -1})), (V{0, 0}));
  EXPECT_EQ(values(run_op("aten::fmod.Scalar", {x, -1})), (V{0, 0}));
}

}  // namespace
}  // namespace symbolite::ops
