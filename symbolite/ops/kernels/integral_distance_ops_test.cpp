// trapz / trapezoid / cumulative_trapezoid, dist, pdist and renorm: against PyTorch 1.13
// (tests/fixtures/ops/op_cases.json, family "integral_distance"), values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(IntegralDistanceOps, MatchPyTorch) { testing::run_op_cases("integral_distance", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
