// sgemm's shortcuts against the product by definition (in double): one row of A (gemv.h's dot
// products over B's rows or B's rows summed), one contiguous column of B and C (dot products
// of A's rows with it), and the general GEMM beside them, with alpha and beta; the same bits
// at every thread count; and float32 products reading subnormal operands as zero (float64
// ones not), at any thread count.
#include "symbolite/ops/cpu/gemm.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/support/float_control.h"
#include "symbolite/support/parallel_for.h"
#include "tests/test_support/thread_setting.h"

namespace symbolite::ops {
namespace {

struct Case {
  bool trans_a, trans_b;
  std::int64_t m, n, k;
  float alpha, beta;
};

TEST(Sgemm, ShortcutsAgreeWithTheDefinition) {
  const Case cases[] = {
      {false, false, 1, 37, 70, 1.0f, 0.0f},     // a row of A times B
      {false, true, 1, 37, 70, 0.5f, 1.0f},      // a row of A times B^T, accumulated
      {false, true, 1, 6, 77, 1.0f, 0.0f},       // rows in a short block, a tail past 8 lanes
      {false, true, 1, 1000, 1024, 1.0f, 0.0f},  // a classifier, no tail
      {false, false, 1, 9, 13, 1.0f, 0.5f},      // a row of B in a vector and a lane
      {false, false, 576, 1, 144, 1.0f, 0.0f},   // a column: a squeeze-and-excitation conv
      {false, false, 33, 1, 17, -2.0f, 0.5f},    // a column with alpha and beta, k < 16
      {true, false, 20, 1, 30, 1.0f, 0.0f},      // A transposed: the GEMM
      {false, false, 20, 9, 30, 1.0f, 0.25f},    // the GEMM
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

// sgemm cuts a product into blocks of C's rows or columns computed alone (gemm.cpp), and
// oneDNN's bits for an element depend on its block's shape: without AVX-512 a block of 2 of
// 12544 columns gives other bits than the whole, with it a lone row or column (16 x 2048 over
// 17 columns, 3 x 65536 over 3) and, with B transposed, a block of fewer than 16 rows (40 x
// 20 x 1024 on 3 threads) did. So the blocks are the same at every thread count, and inside
// another parallel loop, where the product runs on its caller's thread: every element has the
// same bits in all of them.
TEST(Sgemm, ProductsKeepTheirBitsAtEveryThreadCount) {
  struct Shape {
    bool trans_b;
    std::int64_t m, n, k;
  };
  // Inverted-residual expansions (96 x 16 over 112x112, 144 x 24 over 56x56), projections
  // (24 x 144), deep, ragged and short ones; with B transposed, linear layers over 8-300 rows.
  const Shape shapes[] = {
      {false, 96, 112 * 112, 16}, {false, 96, 113 * 113, 16}, {false, 144, 56 * 56, 24},
      {false, 24, 56 * 56, 144},  {false, 48, 57 * 57, 8},    {false, 240, 28 * 28, 40},
      {false, 64, 33 * 35, 300},  {false, 17, 1001, 5},       {false, 16, 17, 2048},
      {false, 2, 2, 65536},       {false, 3, 3, 65536},       {true, 40, 20, 1024},
      {true, 40, 40, 512},        {true, 64, 8, 4096},        {true, 64, 40, 1024},
      {true, 100, 16, 4096},      {true, 100, 40, 512},       {true, 33, 200, 1024},
      {true, 300, 17, 64}};
  for (const Shape& t : shapes) {
    SCOPED_TRACE(::testing::Message()
                 << (t.trans_b ? "x W^T, " : "") << t.m << " x " << t.n << " x " << t.k);
    std::vector<float> a(static_cast<std::size_t>(t.m * t.k));
    std::vector<float> b(static_cast<std::size_t>(t.k * t.n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37f * static_cast<float>(i));
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.71f * static_cast<float>(i));
    const std::int64_t ldb = t.trans_b ? t.k : t.n;
    auto product = [&](int threads, bool nested) {
      testing::ThreadSetting setting(threads);
      std::vector<float> c(static_cast<std::size_t>(t.m * t.n), -1.0f);
      auto run = [&] {
        sgemm(false, t.trans_b, t.m, t.n, t.k, 1.0f, a.data(), t.k, b.data(), ldb, 0.0f, c.data(),
              t.n);
      };
      if (nested) {
        parallel_for(2, 1, [&](std::int64_t begin, std::int64_t) {
          if (begin == 0) run();
        });
      } else {
        run();
      }
      return c;
    };
    const std::vector<float> one = product(1, false);
    for (int threads : {2, 3, 4, 7}) {
      EXPECT_EQ(std::memcmp(one.data(), product(threads, false).data(), one.size() * 4), 0)
          << threads << " threads";
    }
    EXPECT_EQ(std::memcmp(one.data(), product(2, true).data(), one.size() * 4), 0)
        << "inside a parallel loop";
  }
}

// 2^-130 (subnormal) x 2^100 is 2^-30 exactly, and PyTorch's product gives it; symbolite's
// float32 products read the 2^-130 as zero (support/float_control.h), on every path (gemv,
// the GEMM, split across threads), and leave the caller's control as it was.
TEST(Sgemm, ReadsSubnormalOperandsAsZero) {
  const float tiny = std::ldexp(1.0f, -130), huge = std::ldexp(1.0f, 100);
  ASSERT_EQ(std::fpclassify(tiny), FP_SUBNORMAL);
  if (kDenormalsAreZero == 0) GTEST_SKIP() << "no denormals-are-zero control here";
  for (int threads : {1, 2}) {
    testing::ThreadSetting setting(threads);
    for (std::int64_t m : {1, 3, 600}) {  // one row: gemv; a few: the GEMM; many: split rows
      SCOPED_TRACE(::testing::Message() << threads << " threads, m " << m);
      const std::int64_t n = 40, k = 300;
      // Row i of A: tiny (even i) or 1 (odd i) in column i % k, 0 elsewhere; B: huge in
      // column p % n of row p, 0.5 elsewhere. Exactly, even rows are 2^-30 or 2^-131.
      std::vector<float> a(static_cast<std::size_t>(m * k), 0.0f);
      std::vector<float> b(static_cast<std::size_t>(k * n), 0.5f);
      std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f);
      for (std::int64_t i = 0; i < m; ++i) {
        a[static_cast<std::size_t>(i * k + i % k)] = i % 2 == 0 ? tiny : 1.0f;
      }
      for (std::int64_t p = 0; p < k; ++p) b[static_cast<std::size_t>(p * n + p % n)] = huge;
      const FloatControl before = current_float_control();
      sgemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
      EXPECT_EQ(current_float_control(), before);
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t row = i % k;
          const float want = i % 2 == 0 ? 0.0f : (row % n == j ? huge : 0.5f);
          ASSERT_EQ(c[static_cast<std::size_t>(i * n + j)], want) << i << ", " << j;
        }
      }
    }
  }
}

TEST(Dgemm, KeepsSubnormalOperands) {
  const double tiny = std::ldexp(1.0, -1060), huge = std::ldexp(1.0, 1000);
  ASSERT_EQ(std::fpclassify(tiny), FP_SUBNORMAL);
  double c = 0;
  dgemm(false, false, 1, 1, 1, 1.0, &tiny, 1, &huge, 1, 0.0, &c, 1);
  EXPECT_EQ(c, std::ldexp(1.0, -60));
}

}  // namespace
}  // namespace symbolite::ops
