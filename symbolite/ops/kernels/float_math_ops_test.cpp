// The math module and Python number arithmetic (float_math_ops.cpp, number_ops.cpp) against
// PyTorch 1.13 run through TorchScript (tests/fixtures/ops/op_cases.json, family
// builtin_math): nan and inf arguments, 0 ** negative, floor of inf, divmod by zero, wrapping
// factorial and shifts, min/max with NaN.
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(FloatMathOps, MatchPyTorch) { testing::run_op_cases("builtin_math", 0, 0); }

// math.floor and math.ceil of 2^63: PyTorch's checkDoubleInRange lets it through to an
// undefined cast (x86 gives INT64_MIN); it fails as the floats beyond it do. -2^63 converts.
TEST(FloatMathOps, FloorAndCeilOfTwoToThe63Fail) {
  for (const char* op : {"aten::floor.float", "aten::ceil.float"}) {
    SCOPED_TRACE(op);
    const Error e = testing::error_from([&] { run_op(op, {IValue(9223372036854775808.0)}); });
    EXPECT_EQ(e.kind(), ErrorKind::kModel);
    EXPECT_EQ(e.message(), "Cannot convert float 9223372036854775808.000000 to integer");
    EXPECT_EQ(run_op(op, {IValue(-9223372036854775808.0)}).to_int(),
              std::numeric_limits<std::int64_t>::min());
  }
}

}  // namespace
}  // namespace symbolite::ops
