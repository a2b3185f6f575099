// The vector maximum and minimum of a run (run_extremum.h) against the scalar definition: on
// lengths 1-300 (the 64-float blocks and every tail), values drawn at random (a fixed seed)
// with infinities, and a NaN at each of several positions, which must be reported.
#include "symbolite/ops/cpu/run_extremum.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace symbolite::ops {
namespace {

TEST(RunExtremum, VectorsGiveTheScalarExtremesAndSeeEveryNaN) {
  if (!has_vector_extremum()) GTEST_SKIP() << "no AVX-512F on this CPU";
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 100.0f);
  const float inf = std::numeric_limits<float>::infinity();
  for (std::int64_t n = 1; n <= 300; ++n) {
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& v : x) v = normal(rng);
    if (n % 7 == 0) x[static_cast<std::size_t>(n / 2)] = inf;
    if (n % 11 == 0) x[static_cast<std::size_t>(n / 3)] = -inf;
    float hi = -inf, lo = inf;
    for (float v : x) {
      hi = std::max(hi, v);
      lo = std::min(lo, v);
    }
    const RunExtremum max = avx512_max_f32(x.data(), n);
    const RunExtremum min = avx512_min_f32(x.data(), n);
    EXPECT_FALSE(max.nan);
    EXPECT_FALSE(min.nan);
    EXPECT_EQ(max.value, hi) << n;
    EXPECT_EQ(min.value, lo) << n;
    for (std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {
      std::vector<float> y = x;
      y[static_cast<std::size_t>(at)] = std::numeric_limits<float>::quiet_NaN();
      EXPECT_TRUE(avx512_max_f32(y.data(), n).nan) << n << " " << at;
      EXPECT_TRUE(avx512_min_f32(y.data(), n).nan) << n << " " << at;
    }
  }
}

}  // namespace
}  // namespace symbolite::ops
