// Products by weights packed once (packed_weight_product.h) on random shapes — column counts
// that leave partial vectors and blocks, row counts that leave partial tiles, depths over one
// pass, strided operands, both weight layouts, with and without beta and a bias — at one and
// two threads: every output the same bits as its products added in order by fused
// multiply-adds, then beta * c and the bias; nothing written outside the output; and the
// products it declines. Through models PyTorch wrote, on its goldens: the transformer and
// linear cases of the nn reference tests run on it on AVX2 CPUs.
#include "symbolite/ops/cpu/packed_weight_product.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "symbolite/ops/cpu/cpu_features.h"
#include "tests/test_support/thread_setting.h"

// Named, so that a unity build's batch shares none of these names with
// pointwise_channel_lanes_test.cpp (Product, check).
namespace symbolite::ops::packed_weight_test {
namespace {

constexpr float kUnwritten = -12345.0f;

struct Product {
  std::int64_t m, n, k;
  bool transposed;
  float beta;
  bool bias;
};

Bytes owned_bytes(const std::shared_ptr<std::vector<float>>& w) {
  return Bytes(w, reinterpret_cast<const std::uint8_t*>(w->data()), w->size() * sizeof(float));
}

// Runs one product with a and c strided; checks it against the in-order sums. Returns whether
// the kernel took it.
bool check(const Product& p, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  const std::int64_t lda = p.k + 3;
  const std::int64_t ldc = p.n + 5;
  std::vector<float> a(static_cast<std::size_t>(p.m * lda));
  for (float& x : a) x = value(rng);
  auto b = std::make_shared<std::vector<float>>(static_cast<std::size_t>(p.k * p.n));
  for (float& x : *b) x = value(rng);
  std::vector<float> bias(static_cast<std::size_t>(p.n));
  for (float& x : bias) x = value(rng);
  std::vector<float> c(static_cast<std::size_t>(p.m * ldc));
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < ldc; ++j) {
      c[static_cast<std::size_t>(i * ldc + j)] = j < p.n ? value(rng) : kUnwritten;
    }
  }
  const std::vector<float> before = c;
  if (!packed_weight_product(a.data(), lda, owned_bytes(b), p.transposed, p.m, p.n, p.k, p.beta,
                             c.data(), ldc, p.bias ? bias.data() : nullptr)) {
    EXPECT_EQ(c, before) << "declined, yet wrote";
    return false;
  }
  int wrong = 0;
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < ldc; ++j) {
      const auto at = static_cast<std::size_t>(i * ldc + j);
      if (j >= p.n) {
        wrong += c[at] != kUnwritten;
        continue;
      }
      float sum = 0.0f;
      for (std::int64_t kk = 0; kk < p.k; ++kk) {
        const float w = (*b)[static_cast<std::size_t>(p.transposed ? j * p.k + kk : kk * p.n + j)];
        sum = std::fma(a[static_cast<std::size_t>(i * lda + kk)], w, sum);
      }
      if (p.beta != 0.0f) sum = std::fma(p.beta, before[at], sum);
      if (p.bias) sum += bias[static_cast<std::size_t>(j)];
      wrong += std::bit_cast<std::uint32_t>(c[at]) != std::bit_cast<std::uint32_t>(sum);
    }
  }
  EXPECT_EQ(wrong, 0) << p.m << " x " << p.n << " x " << p.k << (p.transposed ? " by W^T" : "")
                      << " beta " << p.beta << (p.bias ? " with bias" : "");
  return true;
}

TEST(PackedWeightProduct, EveryOutputIsItsProductsAddedInOrderAtOneAndTwoThreads) {
  if (cpu_has_avx512f() || !cpu_has_avx2_fma()) {
    GTEST_SKIP() << "AVX2 CPUs without AVX-512 only: the kernel declines everything here";
  }
  // A transformer block's linears (50 tokens, model 256, feed-forward 2048), then random ones.
  std::vector<Product> products = {
      {50, 768, 256, true, 0.0f, true},    {50, 256, 256, true, 0.0f, true},
      {50, 2048, 256, true, 0.0f, true},   {50, 256, 2048, true, 0.0f, true},
      {197, 100, 300, false, 1.0f, false}, {7, 1000, 64, true, 0.5f, true}};
  std::mt19937 rng(41);
  std::uniform_int_distribution<std::int64_t> rows(2, 70);
  std::uniform_int_distribution<std::int64_t> columns(1, 300);
  std::uniform_int_distribution<std::int64_t> depth(1, 700);
  std::bernoulli_distribution coin(0.5);
  for (int i = 0; i < 60; ++i) {
    products.push_back(
        {rows(rng), columns(rng), depth(rng), coin(rng), coin(rng) ? 0.0f : 0.75f, coin(rng)});
  }
  for (int threads : {1, 2}) {
    testing::ThreadSetting setting(threads);
    int taken = 0;
    for (const Product& p : products) taken += check(p, rng);
    EXPECT_GE(taken, 30) << threads << " threads";  // small products are declined
  }
}

TEST(PackedWeightProduct, DeclinesWhatOtherPathsDoBetter) {
  std::mt19937 rng(5);
  // One row (gemv's), a small product; on AVX-512 CPUs, everything (oneDNN's matmul's).
  for (const Product& p :
       std::vector<Product>{{1, 4096, 512, true, 0.0f, false}, {8, 32, 64, true, 0.0f, false}}) {
    EXPECT_FALSE(check(p, rng)) << p.m << " x " << p.n << " x " << p.k;
  }
  if (cpu_has_avx512f()) {
    EXPECT_FALSE(check({64, 256, 256, true, 0.0f, false}, rng));
  }
  // Weights without an owner (not a file's) are never packed: the plan would outlive them.
  std::vector<float> a(64 * 256, 1.0f), w(256 * 256, 1.0f), c(64 * 256);
  const Bytes unowned(nullptr, reinterpret_cast<const std::uint8_t*>(w.data()),
                      w.size() * sizeof(float));
  EXPECT_FALSE(
      packed_weight_product(a.data(), 256, unowned, true, 64, 256, 256, 0.0f, c.data(), 256));
}

}  // namespace
}  // namespace symbolite::ops::packed_weight_test
