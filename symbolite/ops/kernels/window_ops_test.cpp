// hann, hamming, bartlett, blackman and kaiser windows (every overload): against PyTorch 1.13
// (tests/fixtures/ops/op_cases.json, family "window"), values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(WindowOps, MatchPyTorch) { testing::run_op_cases("window", 1e-6, 1e-7); }

}  // namespace
}  // namespace symbolite::ops
