// gather, take_along_dim, scatter (tensor, value, reductions, in place), scatter_add and one_hot:
// against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "gather_scatter"), values and
// PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(GatherScatterOps, MatchPyTorch) { testing::run_op_cases("gather_scatter", 1e-6, 1e-7); }

}  // namespace
}  // namespace symbolite::ops
