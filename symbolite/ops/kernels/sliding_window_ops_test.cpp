// im2col and col2im (F.unfold and F.fold) with kernels, dilation, padding and stride, batched
// and not: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "sliding_window"),
// values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(SlidingWindowOps, MatchPyTorch) { testing::run_op_cases("sliding_window", 1e-6, 1e-7); }

}  // namespace
}  // namespace symbolite::ops
