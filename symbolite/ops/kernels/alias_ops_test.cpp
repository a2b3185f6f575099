// Aliases (family "alias": arccos, greater, divide, concat, relu6, msort, mT, ...) and in-place
// forms (family "in_place": lt_, exp_, lerp_, gcd_, t_, transpose_, ..., with gcd, lcm, ldexp
// and nextafter): against PyTorch 1.13 (tests/fixtures/ops/op_cases.json), values and
// PyTorch's error texts.
#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(AliasOps, MatchPyTorch) { testing::run_op_cases("alias", 1e-5, 1e-6); }

TEST(AliasOps, InPlaceFormsMatchPyTorch) { testing::run_op_cases("in_place", 1e-5, 1e-6); }

// An in-place form writes into self's own storage (every holder sees the values), and a view
// operator's in-place form restrides self for every holder, as unsqueeze_ does.
TEST(AliasOps, InPlaceFormsWriteIntoSelf) {
  IValue x(run_op("aten::ones", {IValue::list({2, 3})}).to_tensor());
  IValue alias = x;  // NOLINT(performance-unnecessary-copy-initialization): `y = x` in a model
  const void* data = x.to_tensor().storage().data();
  IValue out = run_op("aten::lt_.Scalar", {x, IValue(0.5)});
  EXPECT_EQ(out.to_tensor().storage().data(), data);
  EXPECT_EQ(alias.to_tensor().data<float>()[0], 0.0F);
  run_op("aten::transpose_", {x, 0, 1});
  EXPECT_EQ(alias.to_tensor().sizes(), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(alias.to_tensor().storage().data(), data);
  run_op("aten::t_", {alias});
  EXPECT_EQ(x.to_tensor().sizes(), (std::vector<std::int64_t>{2, 3}));
}

}  // namespace
}  // namespace symbolite::ops
