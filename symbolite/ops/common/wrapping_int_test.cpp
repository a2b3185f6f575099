// Integer tensor arithmetic past its type's ends wraps as PyTorch 1.13's x86-64 build does
// (tests/fixtures/ops/op_cases.json, family "integer_wrapping": int64, int32 and uint8 sums,
// products, scans, reductions, matrix products, negation, gcd / lcm). The sanitizer build runs
// these too, where signed overflow in a kernel would stop the run.
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "symbolite/ops/common/wrapping_int.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(WrappingInt, TensorArithmeticWrapsAsPyTorch) {
  testing::run_op_cases("integer_wrapping", 0, 0);
}

TEST(WrappingInt, EveryElementTypeWrapsModuloItsWidth) {
  EXPECT_EQ(wrapping_add<std::int32_t>(std::numeric_limits<std::int32_t>::max(), 1),
            std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(wrapping_mul<std::uint16_t>(65535, 65535), 1);  // promoted to int, it overflowed
  EXPECT_EQ(wrapping_neg<std::int8_t>(-128), -128);
  EXPECT_EQ(wrapping_sub<std::uint8_t>(0, 1), 255);
  EXPECT_EQ(wrapping_mul(2.5f, 4.0f), 10.0f);  // floats as they are
  const FloorDivMod q = floor_divmod(std::numeric_limits<std::int64_t>::max(), -2);
  EXPECT_EQ(q.quotient, std::numeric_limits<std::int64_t>::min() / 2);
  EXPECT_EQ(q.remainder, -1);
}

}  // namespace
}  // namespace symbolite::ops
