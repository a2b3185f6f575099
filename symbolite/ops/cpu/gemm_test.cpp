// sgemm's shortcuts against the product by definition (in double): one row of A (gemv.h's dot
// products over B's rows or B's rows summed), one contiguous column of B and C (dot products
// of A's rows with it), and the general GEMM beside them, with alpha and beta.
#include "symbolite/ops/cpu/gemm.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace symbolite::ops {
namespace {

struct Case {
  bool trans_a, trans_b;
  std::int64_t m, n, k;
  float alpha, beta;
};

TEST(Sgemm, ShortcutsAgreeWithTheDefinition) {
  const Case cases[] = {
      {false, false, 1, 37, 70, 1.0f, 0.0f},    // a row of A times B
      {false, true, 1, 37, 70, 0.5f, 1.0f},     // a row of A times B^T, accumulated
      {false, false, 576, 1, 144, 1.0f, 0.0f},  // a column: a squeeze-and-excitation conv
      {false, false, 33, 1, 17, -2.0f, 0.5f},   // a column with alpha and beta, k < 16
      {true, false, 20, 1, 30, 1.0f, 0.0f},     // A transposed: the GEMM
      {false, false, 20, 9, 30, 1.0f, 0.25f},   // the GEMM
  };
  for (const Case& t : cases) {
    SCOPED_TRACE(::testing::Message()
                 << t.trans_a << t.trans_b << " " << t.m << "x" << t.n << "x" << t.k);
    const std::int64_t lda = t.trans_a ? t.m : t.k;
    const std::int64_t ldb = t.trans_b ? t.k : t.n;
    std::vector<float> a(static_cast<std::size_t>(t.m * t.k));
    std::vector<float> b(static_cast<std::size_t>(t.k * t.n));
    std::vector<float> c(static_cast<std::size_t>(t.m * t.n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.3f * static_cast<float>(i));
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.7f * static_cast<float>(i));
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = 0.1f * static_cast<float>(i % 7);
    std::vector<double> want(c.size());
    for (std::int64_t i = 0; i < t.m; ++i) {
      for (std::int64_t j = 0; j < t.n; ++j) {
        double sum = 0;
        for (std::int64_t p = 0; p < t.k; ++p) {
          const float av = t.trans_a ? a[static_cast<std::size_t>(p * lda + i)]
                                     : a[static_cast<std::size_t>(i * lda + p)];
          const float bv = t.trans_b ? b[static_cast<std::size_t>(j * ldb + p)]
                                     : b[static_cast<std::size_t>(p * ldb + j)];
          sum += static_cast<double>(av) * bv;
        }
        const auto at = static_cast<std::size_t>(i * t.n + j);
        want[at] = t.alpha * sum + (t.beta == 0.0f ? 0.0 : t.beta * static_cast<double>(c[at]));
      }
    }
    sgemm(t.trans_a, t.trans_b, t.m, t.n, t.k, t.alpha, a.data(), lda, b.data(), ldb, t.beta,
          c.data(), t.n);
    for (std::size_t i = 0; i < c.size(); ++i) {
      ASSERT_NEAR(c[i], want[i], 1e-5 * (1.0 + std::fabs(want[i]))) << "element " << i;
    }
  }
}

}  // namespace
}  // namespace symbolite::ops
