// hsplit / vsplit / dsplit, diagflat, sum_to_size, fill_diagonal_, put, index_reduce, vander
// and linalg.vander: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family
// "split_fill"), values and PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(SplitFillOps, MatchPyTorch) { testing::run_op_cases("split_fill", 1e-5, 1e-6); }

}  // namespace
}  // namespace symbolite::ops
