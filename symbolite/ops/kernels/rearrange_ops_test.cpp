// roll and pad against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "rearrange"):
// every dimension choice, negative shifts and crops, each padding mode, and PyTorch's errors.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(RearrangeOps, MatchPyTorch) { testing::run_op_cases("rearrange", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
