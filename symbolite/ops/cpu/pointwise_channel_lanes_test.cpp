// The 1x1 product with output channels in the lanes (pointwise_channel_lanes.h) on random
// shapes — channel counts that leave partial vectors and blocks, pixel counts that leave
// partial tiles, strided operands — at one and two threads: every output the same bits as its
// products added in order by fused multiply-adds, nothing written outside the output, every
// row handed to `done` once; and the products it declines. Through a model PyTorch wrote, on
// its goldens: onednn_matmul_test.cpp (short_rows.ptl).
#include "symbolite/ops/cpu/pointwise_channel_lanes.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include "symbolite/ops/cpu/cpu_features.h"
#include "tests/test_support/thread_setting.h"

namespace symbolite::ops {
namespace {

constexpr float kUnwritten = -12345.0f;

struct Product {
  std::int64_t m, n, k;
};

// A weight in bytes with an owner, as a model file's are.
Bytes weight_bytes(const std::shared_ptr<std::vector<float>>& w) {
  return Bytes(w, reinterpret_cast<const std::uint8_t*>(w->data()), w->size() * sizeof(float));
}

// Runs one product with b and c strided; checks it against the in-order sum. Returns whether
// the kernel took it.
bool check(const Product& p, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  auto a = std::make_shared<std::vector<float>>(static_cast<std::size_t>(p.m * p.k));
  for (float& x : *a) x = value(rng);
  const std::int64_t ldb = p.n + 3;
  const std::int64_t ldc = p.n + 5;
  std::vector<float> b(static_cast<std::size_t>(p.k * ldb));
  for (float& x : b) x = value(rng);
  std::vector<float> c(static_cast<std::size_t>(p.m * ldc), kUnwritten);
  std::vector<int> rows_done(static_cast<std::size_t>(p.m), 0);
  std::mutex mutex;
  const bool taken =
      pointwise_channel_lanes(weight_bytes(a), b.data(), ldb, p.m, p.n, p.k, c.data(), ldc,
                              [&](std::int64_t first, std::int64_t count) {
                                std::lock_guard lock(mutex);
                                for (std::int64_t r = first; r < first + count; ++r) ++rows_done[r];
                              });
  if (!taken) {
    EXPECT_EQ(c, std::vector<float>(c.size(), kUnwritten)) << "declined, yet wrote";
    return false;
  }
  int wrong = 0;
  for (std::int64_t i = 0; i < p.m; ++i) {
    EXPECT_EQ(rows_done[static_cast<std::size_t>(i)], 1) << "row " << i;
    for (std::int64_t j = 0; j < ldc; ++j) {
      const float got = c[static_cast<std::size_t>(i * ldc + j)];
      if (j >= p.n) {
        wrong += got != kUnwritten;
        continue;
      }
      float sum = 0.0f;
      for (std::int64_t kk = 0; kk < p.k; ++kk) {
        sum = std::fma((*a)[static_cast<std::size_t>(i * p.k + kk)],
                       b[static_cast<std::size_t>(kk * ldb + j)], sum);
      }
      wrong += std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(sum);
    }
  }
  EXPECT_EQ(wrong, 0) << p.m << " x " << p.n << " x " << p.k;
  return true;
}

TEST(PointwiseChannelLanes, EveryOutputIsItsProductsAddedInOrderAtOneAndTwoThreads) {
  if (!cpu_has_avx512f()) GTEST_SKIP() << "no AVX-512 here: the kernel declines everything";
  // MobileNet-V3's, MnasNet's and EfficientNet's 7x7 and 14x14 products, then random ones.
  std::vector<Product> products = {{576, 49, 96},   {96, 49, 576},   {1280, 49, 320},
                                   {40, 49, 512},   {112, 196, 672}, {480, 196, 80},
                                   {1152, 49, 192}, {64, 256, 64},   {16, 64, 2048}};
  std::mt19937 rng(29);
  std::uniform_int_distribution<std::int64_t> channels(1, 300);
  std::uniform_int_distribution<std::int64_t> pixels(1, 256);
  std::uniform_int_distribution<std::int64_t> depth(1, 700);
  for (int i = 0; i < 60; ++i) products.push_back({channels(rng), pixels(rng), depth(rng)});
  for (int threads : {1, 2}) {
    testing::ThreadSetting setting(threads);
    int taken = 0;
    for (const Product& p : products) taken += check(p, rng);
    EXPECT_GE(taken, 20) << threads << " threads";  // the rules decline a share of them
  }
}

TEST(PointwiseChannelLanes, DeclinesWhatOtherPathsDoBetter) {
  std::mt19937 rng(3);
  // Too long rows, too small a product, channels filling their lanes worse than pixels
  // (24 of 32 against 49 of 64), and a short sum over rows longer than 64.
  for (const Product& p :
       std::vector<Product>{{576, 257, 96}, {96, 49, 16}, {24, 49, 2048}, {240, 196, 40}}) {
    EXPECT_FALSE(check(p, rng)) << p.m << " x " << p.n << " x " << p.k;
  }
  // Weights without an owner (not a file's) are never packed: the plan would outlive them.
  std::vector<float> a(576 * 96, 1.0f);
  std::vector<float> b(96 * 49, 1.0f);
  std::vector<float> c(576 * 49);
  const Bytes unowned(nullptr, reinterpret_cast<const std::uint8_t*>(a.data()),
                      a.size() * sizeof(float));
  EXPECT_FALSE(pointwise_channel_lanes(unowned, b.data(), 49, 576, 49, 96, c.data(), 49,
                                       [](std::int64_t, std::int64_t) {}));
}

}  // namespace
}  // namespace symbolite::ops
