// grid_sampler (bilinear and nearest, every padding mode, aligned and not) and
// affine_grid_generator: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family
// "grid_sample"), values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(GridSampleOps, MatchPyTorch) { testing::run_op_cases("grid_sample", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
