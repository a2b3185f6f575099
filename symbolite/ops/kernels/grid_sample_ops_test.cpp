// grid_sampler (bilinear and nearest, every padding mode, aligned and not) and
// affine_grid_generator: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family
// "grid_sample"), values and PyTorch's error texts.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(GridSampleOps, MatchPyTorch) { testing::run_op_cases("grid_sample", 1e-5, 1e-6); }

// x coordinates a hostile grid can hold (NaN, infinite, beyond int64 once unnormalized, beyond
// int32) and one ordinary, sampled from 1..16 in 4 x 4 at y = 0: PyTorch 1.13's values
// (F.grid_sample, float32, corners not aligned), which never convert such a coordinate to an
// index. Border and reflection padding clip NaN to 0, as PyTorch's vectorized kernel does.
TEST(GridSampleOps, HostileCoordinatesSampleAsPyTorch) {
  using tensor::DType;
  using tensor::Tensor;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> xs = {nan, inf, -inf, 1e30F, -1e30F, 3e9F, 0.5F};
  Tensor input = Tensor::empty({1, 1, 4, 4}, DType::kFloat32);
  for (int i = 0; i < 16; ++i) input.mutable_data<float>()[i] = static_cast<float>(i + 1);
  Tensor grid = Tensor::empty({1, 1, 7, 2}, DType::kFloat32);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    grid.mutable_data<float>()[2 * i] = xs[i];
    grid.mutable_data<float>()[2 * i + 1] = 0;
  }
  struct Case {
    std::int64_t mode, padding;  // bilinear 0, nearest 1; zeros 0, border 1, reflection 2
    std::vector<float> want;
  };
  const std::vector<Case> cases = {
      {0, 0, {nan, nan, nan, 0, 0, 0, 9.5F}}, {0, 1, {7, 10, 7, 10, 7, 10, 9.5F}},
      {0, 2, {7, 7, 7, 7, 7, 7, 9.5F}},       {1, 0, {0, 0, 0, 0, 0, 0, 11}},
      {1, 1, {9, 12, 9, 12, 9, 12, 11}},      {1, 2, {9, 9, 9, 9, 9, 9, 11}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "mode " << c.mode << " padding " << c.padding);
    const Tensor out =
        run_op("aten::grid_sampler", {input, grid, c.mode, c.padding, false}).to_tensor();
    ASSERT_EQ(out.numel(), 7);
    for (std::size_t i = 0; i < c.want.size(); ++i) {
      const float got = out.data<float>()[i];
      if (std::isnan(c.want[i])) {
        EXPECT_TRUE(std::isnan(got)) << "x " << xs[i] << ": " << got;
      } else {
        EXPECT_EQ(got, c.want[i]) << "x " << xs[i];
      }
    }
  }
}

}  // namespace
}  // namespace symbolite::ops
