// torch.unique (sorted, with inverse and counts; along a dim; consecutive runs), bincount and
// histc: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "unique"), values and
// PyTorch's error texts.
#include <gtest/gtest.h>

#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(UniqueOps, MatchPyTorch) { testing::run_op_cases("unique", 0, 0); }

}  // namespace
}  // namespace symbolite::ops
