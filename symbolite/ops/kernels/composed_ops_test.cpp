// The *_like and new_* factories, *_as conversions, movedim, narrow, clip, square, tile, outer,
// dot, mv, masked_select, addcmul and addcdiv: against PyTorch 1.13
// (tests/fixtures/ops/op_cases.json, family "composed"), values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(ComposedOps, MatchPyTorch) { testing::run_op_cases("composed", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
