// constant_pad_nd, reflection and replication padding, pad_sequence: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "padding"), values
// and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(PaddingOps, MatchPyTorch) { testing::run_op_cases("padding", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
