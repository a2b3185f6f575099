// float16 and bfloat16 conversions against PyTorch 1.13's own (tests/fixtures/dtypes, made by
// tests/fixtures/make_half_float_fixtures.py): every rounding of thousands of floats chosen at
// and around both formats' ties, subnormals and overflow, bit for bit, and the float of a
// fifth of all 16-bit patterns (every subnormal among them).
#include "symbolite/tensor/half_float.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::tensor {
namespace {

Tensor fixture(const std::string& name) {
  return read_npy_file(testing::fixture_path("dtypes/" + name));
}

TEST(HalfFloat, FloatsRoundAsPyTorchRoundsThem) {
  const Tensor floats = fixture("floats.npy");
  const Tensor half = fixture("to_half_bits.npy");
  const Tensor bf16 = fixture("to_bfloat16_bits.npy");
  ASSERT_EQ(half.numel(), floats.numel());
  ASSERT_EQ(bf16.numel(), floats.numel());
  for (std::int64_t i = 0; i < floats.numel(); ++i) {
    const float f = floats.data<float>()[i];
    EXPECT_EQ(float_to_half(f), static_cast<std::uint16_t>(half.data<std::int16_t>()[i]))
        << f << " (bits " << std::bit_cast<std::uint32_t>(f) << ")";
    EXPECT_EQ(float_to_bfloat16(f), static_cast<std::uint16_t>(bf16.data<std::int16_t>()[i]))
        << f << " (bits " << std::bit_cast<std::uint32_t>(f) << ")";
  }
}

TEST(HalfFloat, PatternsReadAsPyTorchReadsThem) {
  for (const std::string name : {"half", "bfloat16"}) {
    const Tensor patterns = fixture(name + "_patterns.npy");
    const Tensor floats = fixture("from_" + name + ".npy");
    ASSERT_EQ(patterns.numel(), floats.numel());
    for (std::int64_t i = 0; i < patterns.numel(); ++i) {
      const auto bits = static_cast<std::uint16_t>(patterns.data<std::int16_t>()[i]);
      const float got = name == "half" ? half_to_float(bits) : bfloat16_to_float(bits);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(got),
                std::bit_cast<std::uint32_t>(floats.data<float>()[i]))
          << name << " pattern " << bits;
    }
  }
}

}  // namespace
}  // namespace symbolite::tensor
