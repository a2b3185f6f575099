// String methods (string_ops.cpp) against PyTorch 1.13 run through TorchScript
// (tests/fixtures/ops/op_cases.json, family builtin_str): case maps and predicates, padding,
// rfind/count, slicing with steps, ord/chr, float(str) and %-formatting with its errors.
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/operator_registry.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(StringOps, MatchPyTorch) { testing::run_op_cases("builtin_str", 0, 0); }

// "%d" % x truncates a float to a C int; PyTorch 1.13 casts unchecked, undefined for NaN, the
// infinities and floats outside int (x86 prints -2147483648 for each). They fail here.
TEST(StringOps, PercentDOfAFloatOutsideIntFails) {
  auto format = [](double v) {
    return testing::run_case_op("aten::percentFormat", {IValue::string("v=%d"), IValue(v)}, true)
        .back()
        .to_string();
  };
  EXPECT_EQ(format(-2.9), "v=-2");
  EXPECT_EQ(format(2147483647.9), "v=2147483647");
  EXPECT_EQ(format(-2147483648.0), "v=-2147483648");
  const double inf = std::numeric_limits<double>::infinity();
  for (double v : {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 3e9, -3e9, 1e300}) {
    const Error e = testing::error_from([&] { format(v); });
    EXPECT_EQ(e.kind(), ErrorKind::kModel);
    EXPECT_EQ(e.message().rfind("aten::percentFormat: %d of float ", 0), 0u) << e.message();
  }
  EXPECT_EQ(testing::error_from([&] { format(3e9); }).message(),
            "aten::percentFormat: %d of float 3000000000 is outside a C int");
}

// OPN's count comes from the bytecode: PyTorch writes 2 (the format and its argument or tuple);
// a count of none, of more, or of more values than the stack holds is a malformed model.
TEST(StringOps, PercentFormatRefusesACountItCannotTake) {
  const OperatorDef* def = default_registry().find("aten::percentFormat");
  ASSERT_NE(def, nullptr);
  const IValue format = IValue::string("%d");
  for (const Stack& given : {Stack{IValue(0)}, Stack{format, IValue(1), IValue(1), IValue(3)},
                             Stack{format, IValue(2)}, Stack{format, IValue(-1)}}) {
    Stack stack = given;
    const Error e = testing::error_from([&] { def->kernel(stack); });
    EXPECT_EQ(e.kind(), ErrorKind::kModel);
    EXPECT_EQ(e.message(), "aten::percentFormat: called with " +
                               std::to_string(given.back().to_int()) +
                               " values, expected the format string and at most one argument");
  }
}

}  // namespace
}  // namespace symbolite::ops
