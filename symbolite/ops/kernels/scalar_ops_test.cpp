// Scalar operators with mixed operands and booleans, as Python and TorchScript define them
// (2.5 > 2, 2 == 2.0, True & False); prim::requires_grad is False in an inference runtime.
// densenet121 (docs/LOWERING.md zoo run) uses gt.float_int, __and__.bool and requires_grad,
// and gives PyTorch's outputs through them.
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/tensor/tensor.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

IValue call(const std::string& name, std::vector<IValue> args) {
  const OperatorDef* def = default_registry().find(name);
  if (def == nullptr) throw std::runtime_error("no operator " + name);
  EXPECT_EQ(def->num_args, args.size()) << name;
  Stack stack = std::move(args);
  def->kernel(stack);
  EXPECT_EQ(stack.size(), 1u) << name;
  return stack.back();
}

TEST(ScalarOps, MixedIntAndFloatCompareAndCombineAsFloats) {
  const IValue f(2.5), i(std::int64_t{2}), two(2.0);
  EXPECT_TRUE(call("aten::gt.float_int", {f, i}).to_bool());
  EXPECT_FALSE(call("aten::gt.int_float", {i, f}).to_bool());
  EXPECT_TRUE(call("aten::lt.int_float", {i, f}).to_bool());
  EXPECT_TRUE(call("aten::le.float_int", {two, i}).to_bool());
  EXPECT_TRUE(call("aten::ge.int_float", {i, two}).to_bool());
  EXPECT_TRUE(call("aten::eq.int_float", {i, two}).to_bool());
  EXPECT_FALSE(call("aten::ne.float_int", {two, i}).to_bool());
  IValue sum = call("aten::add.int_float", {i, f});
  EXPECT_TRUE(sum.is(IValue::Kind::kDouble));
  EXPECT_EQ(sum.to_double(), 4.5);
  EXPECT_EQ(call("aten::sub.float_int", {f, i}).to_double(), 0.5);
  EXPECT_EQ(call("aten::mul.float_int", {f, i}).to_double(), 5.0);
}

TEST(ScalarOps, BooleanOperators) {
  for (bool a : {false, true}) {
    for (bool b : {false, true}) {
      EXPECT_EQ(call("aten::__and__.bool", {IValue(a), IValue(b)}).to_bool(), a && b);
      EXPECT_EQ(call("aten::__or__.bool", {IValue(a), IValue(b)}).to_bool(), a || b);
      EXPECT_EQ(call("aten::__xor__.bool", {IValue(a), IValue(b)}).to_bool(), a != b);
    }
  }
}

// __contains__ on int and float lists, is_floating_point, numel, Bool.int, div.float,
// neg.float, __range_length and __derive_index (tests/fixtures/ops/op_cases.json).
TEST(ScalarOps, MatchPyTorch) { testing::run_op_cases("scalar", 0, 0); }

TEST(ScalarOps, NoTensorRequiresGrad) {
  tensor::Tensor t = tensor::Tensor::empty({2}, tensor::DType::kFloat32);
  IValue r = call("prim::requires_grad", {IValue(t)});
  EXPECT_TRUE(r.is(IValue::Kind::kBool));
  EXPECT_FALSE(r.to_bool());
}

// int(x) of a float: PyTorch 1.13 casts unchecked, undefined for NaN, the infinities and floats
// outside int64 (x86 gives INT64_MIN for each); they fail here, naming the value.
TEST(ScalarOps, IntOfAFloatOutsideInt64Fails) {
  EXPECT_EQ(call("aten::Int.float", {IValue(-2.9)}).to_int(), -2);
  EXPECT_EQ(call("aten::Int.float", {IValue(-9223372036854775808.0)}).to_int(),
            std::numeric_limits<std::int64_t>::min());
  const double inf = std::numeric_limits<double>::infinity();
  for (double v : {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 1e300, -1e300,
                   9223372036854775808.0}) {
    const Error e = testing::error_from([&] { call("aten::Int.float", {IValue(v)}); });
    EXPECT_EQ(e.kind(), ErrorKind::kModel);
    EXPECT_EQ(e.message().rfind("aten::Int.float: cannot convert float ", 0), 0u) << e.message();
  }
  EXPECT_EQ(testing::error_from([&] {
              call("aten::Int.float", {IValue(std::numeric_limits<double>::quiet_NaN())});
            }).message(),
            "aten::Int.float: cannot convert float nan to integer");
}

// TorchScript's int arithmetic at int64's ends. PyTorch 1.13 (x86-64) wraps +, -, *, negation
// and abs (the expected values are its results), and its process dies of SIGFPE on
// INT64_MIN % -1 and INT64_MIN // -1 (the division traps): here those give 0 and the wrapped
// quotient, and no operator overflows in C++ (undefined there; UBSan checks the unit tests).
TEST(ScalarOps, IntArithmeticWrapsAsPyTorchAndNeverTraps) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  auto int2 = [](const char* op, std::int64_t a, std::int64_t b) {
    return call(op, {IValue(a), IValue(b)}).to_int();
  };
  EXPECT_EQ(int2("aten::add.int", kMax, 1), kMin);
  EXPECT_EQ(int2("aten::mul.int", kMax, 2), -2);
  EXPECT_EQ(int2("aten::sub.int", kMin, 1), kMax);
  EXPECT_EQ(call("aten::neg.int", {IValue(kMin)}).to_int(), kMin);
  EXPECT_EQ(call("prim::abs.int", {IValue(kMin)}).to_int(), kMin);
  EXPECT_EQ(int2("aten::remainder.int", kMin, -1), 0);
  EXPECT_EQ(int2("aten::floordiv.int", kMin, -1), kMin);
  EXPECT_EQ(int2("aten::floordiv.int", 7, -1), -7);
  // Floor division near the ends: no intermediate overflows (a - a % b did for kMax // -2).
  EXPECT_EQ(int2("aten::floordiv.int", kMax, -2), kMin / 2);
  EXPECT_EQ(int2("aten::remainder.int", kMax, -2), -1);
  EXPECT_EQ(int2("aten::floordiv.int", -7, 2), -4);
  EXPECT_EQ(int2("aten::remainder.int", -7, 2), 1);
  // The Scalar overloads (number_ops): INT64_MIN // -1 trapped, and 1 % kMax was -1.
  EXPECT_EQ(int2("aten::floordiv", kMin, -1), kMin);
  EXPECT_EQ(int2("aten::remainder", kMin, -1), 0);
  EXPECT_EQ(int2("aten::remainder", 1, kMax), 1);
  EXPECT_EQ(int2("aten::remainder", -1, kMax), kMax - 1);
  EXPECT_EQ(int2("aten::floordiv", -7, 2), -4);
  Stack divmod = {IValue(kMin), IValue(std::int64_t{-1})};
  default_registry().find("aten::divmod.int")->kernel(divmod);
  ASSERT_EQ(divmod.size(), 2u);
  EXPECT_EQ(divmod[0].to_int(), kMin);
  EXPECT_EQ(divmod[1].to_int(), 0);
  // A loop's trip count and its variable at the ends of int64.
  EXPECT_EQ(call("aten::__range_length", {IValue(kMax - 2), IValue(kMax), IValue(std::int64_t{1})})
                .to_int(),
            2);
  EXPECT_EQ(call("aten::__range_length", {IValue(kMin), IValue(kMax), IValue(kMax)}).to_int(), 3);
  EXPECT_EQ(call("aten::__range_length", {IValue(kMax), IValue(kMin), IValue(kMin)}).to_int(), 2);
  const Error e = testing::error_from([&] {
    call("aten::__range_length", {IValue(kMin), IValue(kMax), IValue(std::int64_t{1})});
  });
  EXPECT_NE(e.message().find("more than an int holds"), std::string::npos) << e.message();
  EXPECT_EQ(
      call("aten::__derive_index", {IValue(std::int64_t{2}), IValue(kMax), IValue(kMax)}).to_int(),
      kMax - 2);  // kMax + 2 kMax, wrapped
}

}  // namespace
}  // namespace symbolite::ops
