// index_put and index_put_ with masks, index lists, None, broadcast values and accumulate: against
// PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "index_put"), values and PyTorch's error
// texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(IndexPutOps, MatchPyTorch) { testing::run_op_cases("index_put", 1e-6, 1e-7); }

}  // namespace
}  // namespace symbolite::ops
