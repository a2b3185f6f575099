// Random sampling: symbolite's generator is not PyTorch's, so these check what must hold of any
// correct sampler — shapes, dtypes, ranges, permutations — and the distributions' moments over
// many draws (the generator's seed is fixed, so each check is deterministic), plus PyTorch's
// argument errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

std::vector<double> values(const Tensor& t) {
  const Tensor d = to_dtype(t, DType::kFloat64);
  return {d.data<double>(), d.data<double>() + d.numel()};
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double stddev(const std::vector<double>& v) {
  const double m = mean(v);
  double sum = 0;
  for (double x : v) sum += (x - m) * (x - m);
  return std::sqrt(sum / static_cast<double>(v.size()));
}

TEST(RandomOps, RandIsUniformOnZeroToOne) {
  const Tensor t = run_op("aten::rand", {int_list_value({100, 200})}).to_tensor();
  EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{100, 200}));
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  const std::vector<double> v = values(t);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x >= 0 && x < 1; }));
  EXPECT_NEAR(mean(v), 0.5, 0.01);
  EXPECT_NEAR(stddev(v), std::sqrt(1.0 / 12), 0.01);
  const Tensor d = run_op("aten::rand", {int_list_value({3}), IValue(std::int64_t{7})}).to_tensor();
  EXPECT_EQ(d.dtype(), DType::kFloat64);
}

TEST(RandomOps, RandnAndNormalHaveTheirMoments) {
  const std::vector<double> v =
      values(run_op("aten::randn", {int_list_value({20000})}).to_tensor());
  EXPECT_NEAR(mean(v), 0.0, 0.03);
  EXPECT_NEAR(stddev(v), 1.0, 0.03);
  const Tensor like =
      run_op("aten::randn_like", {IValue(Tensor::empty({4, 5}, DType::kFloat64))}).to_tensor();
  EXPECT_EQ(like.sizes(), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(like.dtype(), DType::kFloat64);
  const Tensor scaled =
      run_op("aten::normal.float_float", {IValue(3.0), IValue(2.0), int_list_value({20000})})
          .to_tensor();
  EXPECT_NEAR(mean(values(scaled)), 3.0, 0.06);
  EXPECT_NEAR(stddev(values(scaled)), 2.0, 0.06);
  Tensor means = Tensor::empty({2, 10000}, DType::kFloat32);
  float* m = means.mutable_data<float>();
  for (std::int64_t i = 10000; i < 20000; ++i) m[i] = 10.0f;  // row 1: mean 10
  const Tensor rows = run_op("aten::normal.Tensor_float", {IValue(means), IValue(0.5)}).to_tensor();
  const std::vector<double> r = values(rows);
  EXPECT_NEAR(mean({r.begin(), r.begin() + 10000}), 0.0, 0.03);
  EXPECT_NEAR(mean({r.begin() + 10000, r.end()}), 10.0, 0.03);
  EXPECT_THROW(run_op("aten::normal.Tensor_float", {IValue(means), IValue(-1.0)}), OpError);
}

TEST(RandomOps, RandintStaysInItsRangeAndCoversIt) {
  const Tensor t = run_op("aten::randint.low", {IValue(std::int64_t{-3}), IValue(std::int64_t{4}),
                                                int_list_value({5000})})
                       .to_tensor();
  EXPECT_EQ(t.dtype(), DType::kInt64);
  const std::vector<double> v = values(t);
  for (int k = -3; k < 4; ++k) EXPECT_NE(std::find(v.begin(), v.end(), k), v.end()) << k;
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x >= -3 && x < 4; }));
  try {
    run_op("aten::randint", {IValue(std::int64_t{0}), int_list_value({2})});
    FAIL() << "randint(0) drew";
  } catch (const OpError& e) {
    EXPECT_STREQ(e.what(), "random_ expects 'from' to be less than 'to', but got from=0 >= to=0");
  }
}

TEST(RandomOps, RandpermIsAPermutation) {
  const std::vector<double> v =
      values(run_op("aten::randperm", {IValue(std::int64_t{50})}).to_tensor());
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(sorted[static_cast<std::size_t>(i)], i);
  EXPECT_NE(v, sorted);  // 50! orders: the identity would mean no shuffle
}

TEST(RandomOps, BernoulliAndMultinomialFollowTheirProbabilities) {
  const Tensor shape = Tensor::empty({20000}, DType::kFloat32);
  const std::vector<double> coins =
      values(run_op("aten::bernoulli.p", {IValue(shape), IValue(0.25)}).to_tensor());
  EXPECT_NEAR(mean(coins), 0.25, 0.015);
  Tensor weights = Tensor::empty({2, 4}, DType::kFloat32);
  float* w = weights.mutable_data<float>();
  const float row[] = {0.0f, 1.0f, 0.0f, 3.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  std::copy(row, row + 8, w);
  const Tensor draws =
      run_op("aten::multinomial", {IValue(weights), IValue(std::int64_t{2000}), IValue(true)})
          .to_tensor();
  EXPECT_EQ(draws.sizes(), (std::vector<std::int64_t>{2, 2000}));
  const std::vector<double> d = values(draws);
  const auto threes = std::count(d.begin(), d.begin() + 2000, 3.0);
  EXPECT_TRUE(std::all_of(d.begin(), d.begin() + 2000, [](double x) { return x == 1 || x == 3; }));
  EXPECT_NEAR(static_cast<double>(threes) / 2000, 0.75, 0.03);
  // Without replacement: each index once.
  const std::vector<double> once =
      values(run_op("aten::multinomial", {IValue(weights), IValue(std::int64_t{2})}).to_tensor());
  EXPECT_NE(once[0], once[1]);
  EXPECT_NE(once[2], once[3]);
  EXPECT_THROW(run_op("aten::multinomial", {IValue(weights), IValue(std::int64_t{5})}), OpError);
}

// The in-place fills have their distributions' means (exponential 1 / lambda, geometric 1 / p,
// log-normal exp(mean + std^2 / 2)) and medians (Cauchy), and PyTorch's parameter checks.
// The fills' parameter and dtype checks, with PyTorch's messages (family "random").
TEST(RandomOps, ChecksMatchPyTorch) { testing::run_op_cases("random", 0, 0); }

TEST(RandomOps, InPlaceFillsFollowTheirDistributions) {
  const auto draw = [](const char* op, std::vector<IValue> args) {
    IValue self(Tensor::empty({40000}, DType::kFloat64));
    args.insert(args.begin(), self);
    run_op(op, std::move(args));
    return values(self.to_tensor());
  };
  std::vector<double> e = draw("aten::exponential_", {IValue(2.0)});
  EXPECT_TRUE(std::all_of(e.begin(), e.end(), [](double x) { return x >= 0; }));
  EXPECT_NEAR(mean(e), 0.5, 0.02);
  std::vector<double> g = draw("aten::geometric_", {IValue(0.25)});
  EXPECT_TRUE(
      std::all_of(g.begin(), g.end(), [](double x) { return x >= 1 && x == std::floor(x); }));
  EXPECT_NEAR(mean(g), 4.0, 0.1);
  EXPECT_NEAR(mean(draw("aten::log_normal_", {IValue(0.0), IValue(0.5)})), std::exp(0.125), 0.02);
  std::vector<double> c = draw("aten::cauchy_", {IValue(3.0), IValue(1.0)});
  std::nth_element(c.begin(), c.begin() + 20000, c.end());
  EXPECT_NEAR(c[20000], 3.0, 0.05);
  const IValue t(Tensor::empty({2}, DType::kFloat32));
  EXPECT_THROW(run_op("aten::exponential_", {t, IValue(-1.0)}), OpError);
  EXPECT_THROW(run_op("aten::geometric_", {t, IValue(1.0)}), OpError);
  EXPECT_THROW(run_op("aten::log_normal_", {t, IValue(1.0), IValue(0.0)}), OpError);
}

// random_ draws integers in its range (all of them, over enough draws), poisson and binomial
// have their means, and manual_seed makes a thread's draws repeat.
TEST(RandomOps, IntegerDrawsAndSeeding) {
  IValue ints(Tensor::empty({3000}, DType::kInt64));
  run_op("aten::random_.from", {ints, IValue(std::int64_t{-2}), IValue(std::int64_t{3})});
  std::vector<double> v = values(ints.to_tensor());
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), -2);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 2);
  IValue small(Tensor::empty({2000}, DType::kFloat32));
  run_op("aten::random_.to", {small, IValue(std::int64_t{4})});
  v = values(small.to_tensor());
  EXPECT_TRUE(std::all_of(v.begin(), v.end(),
                          [](double x) { return x >= 0 && x < 4 && x == std::floor(x); }));
  Tensor rates = Tensor::empty({20000}, DType::kFloat64);
  std::fill_n(rates.mutable_data<double>(), 20000, 3.5);
  EXPECT_NEAR(mean(values(run_op("aten::poisson", {IValue(rates)}).to_tensor())), 3.5, 0.05);
  Tensor counts = Tensor::empty({20000}, DType::kFloat32);
  std::fill_n(counts.mutable_data<float>(), 20000, 10.0f);
  const Tensor p = Tensor::empty({}, DType::kFloat32);
  p.mutable_data<float>()[0] = 0.3f;
  const Tensor draws = run_op("aten::binomial", {IValue(counts), IValue(p)}).to_tensor();
  EXPECT_EQ(draws.dtype(), DType::kFloat32);
  EXPECT_NEAR(mean(values(draws)), 3.0, 0.05);
  const auto draw_after_seed = [] {
    run_op_multi("aten::manual_seed", {IValue(std::int64_t{42})});
    return values(run_op("aten::rand", {int_list_value({5})}).to_tensor());
  };
  EXPECT_EQ(draw_after_seed(), draw_after_seed());
}

// Parameters whose draws have no int64 count: poisson refuses rates past 2^62 (libstdc++ would
// draw forever; PyTorch's cast of the count is undefined) and binomial counts of 2^63 and up; a
// NaN count or probability draws NaN (PyTorch's never returns for a NaN count); -inf trials
// draw 0; geometric_ saturates an integer dtype (PyTorch's cast is undefined past it).
TEST(RandomOps, HostileParametersDrawDefinedValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto doubles = [](std::vector<double> v) {
    Tensor t = Tensor::empty({static_cast<std::int64_t>(v.size())}, DType::kFloat64);
    std::copy(v.begin(), v.end(), t.mutable_data<double>());
    return t;
  };
  for (double rate : {inf, 1e20}) {
    const Error e = testing::error_from([&] { run_op("aten::poisson", {doubles({rate})}); });
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_EQ(e.message().rfind("aten::poisson: symbolite draws from rates up to 2^62, got ", 0),
              0u)
        << e.message();
  }
  const std::vector<double> draws = values(
      run_op("aten::binomial", {doubles({nan, -inf, 5}), doubles({0.3, 0.3, nan})}).to_tensor());
  EXPECT_TRUE(std::isnan(draws[0]));
  EXPECT_EQ(draws[1], 0);
  EXPECT_TRUE(std::isnan(draws[2]));
  const Error e = testing::error_from([&] {
    run_op("aten::binomial", {doubles({inf}), doubles({0.3})});
  });
  EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
  EXPECT_EQ(e.message(),
            "aten::binomial: symbolite draws fewer than 2^63 trials, got a count of inf");
  for (DType dtype : {DType::kInt8, DType::kInt64}) {
    IValue t(Tensor::empty({64}, dtype));
    run_op("aten::geometric_", {t, IValue(1e-300)});
    const double top = dtype == DType::kInt8 ? 127.0 : 0x1p63;
    for (double v : values(t.to_tensor())) EXPECT_EQ(v, top);
  }
}

}  // namespace
}  // namespace symbolite::ops
