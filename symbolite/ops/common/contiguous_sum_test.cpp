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

}  // namespace
}  // namespace symbolite::ops
