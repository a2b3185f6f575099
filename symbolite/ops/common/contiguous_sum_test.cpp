// contiguous_sum over float32 (AVX-512 partial sums where the CPU has them) against the same
// sum in long double, at every length around its 16-element blocks and from an unaligned
// start: a double sum of floats is within about 1e-16 of their magnitudes' sum, whatever the
// order, where a float running sum would lose whole digits.
#include "symbolite/ops/common/contiguous_sum.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace symbolite::ops {
namespace {

TEST(ContiguousSum, FloatAgreesWithLongDoubleAtEveryLength) {
  std::vector<float> values(80);
  for (std::size_t i = 0; i < values.size(); ++i) {
    // Mixed signs, magnitudes from 1e-3 to 1e5.
    values[i] =
        std::sin(0.7f * static_cast<float>(i)) * std::pow(10.0f, static_cast<float>(i % 9) - 3.0f);
  }
  for (std::int64_t n = 0; n <= 70; ++n) {
    const float* start = values.data() + 3;
    long double want = 0;
    long double magnitude = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      want += start[i];
      magnitude += std::fabs(start[i]);
    }
    EXPECT_NEAR(contiguous_sum(start, n), static_cast<double>(want),
                4e-16 * static_cast<double>(magnitude))
        << "n = " << n;
  }
}

// accumulate's rows (sums in registers across rows where the CPU has AVX-512) add in row order:
// the bits of the element-by-element loop, at widths around its 32- and 8-sum blocks.
TEST(ContiguousSum, AccumulatedRowsAreTheElementLoopsBits) {
  const std::int64_t rows = 7, stride = 83;
  std::vector<float> in(static_cast<std::size_t>(rows * stride));
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i] =
        std::sin(1.3f * static_cast<float>(i)) * std::pow(10.0f, static_cast<float>(i % 7) - 2.0f);
  }
  for (std::int64_t n = 0; n <= 80; ++n) {
    std::vector<double> got(static_cast<std::size_t>(n), 0.25), want = got;
    accumulate(in.data() + 1, stride, rows, got.data(), n);
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t i = 0; i < n; ++i) {
        want[static_cast<std::size_t>(i)] +=
            static_cast<double>(in[static_cast<std::size_t>(1 + r * stride + i)]);
      }
    }
    EXPECT_EQ(got, want) << n;
  }
}

}  // namespace
}  // namespace symbolite::ops
