// The float32 gates (SLEEF's vector sigmoid and tanh) against the float64 ones (the C
// library's exp and tanh, PyTorch's formulas written out per element) on the same inputs:
// unit counts below a vector, at one and with a tail, pre-activations large enough to
// saturate every gate. PyTorch's own outputs hold the layers end to end (the rnn/ cases of
// tests/interop/nn_families.py and nn_extra_ops_test.cpp).
#include "symbolite/ops/cpu/recurrent_gates.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace symbolite::ops {
namespace {

struct Inputs {
  std::vector<double> a, r, c, h;
};

Inputs draw(std::int64_t hidden, std::int64_t gates, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal(0.0, 4.0);
  auto values = [&](std::int64_t n) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (double& x : v) x = static_cast<float>(normal(gen));  // exactly representable in float
    return v;
  };
  return {values(gates * hidden), values(gates * hidden), values(hidden), values(hidden)};
}

std::vector<float> narrow(const std::vector<double>& v) { return {v.begin(), v.end()}; }

void expect_close(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    // float rounding of sums whose terms reach about 10 (the cell state)
    EXPECT_NEAR(got[i], want[i], 2e-6 * std::abs(want[i]) + 4e-6) << "unit " << i;
  }
}

constexpr std::int64_t kUnits[] = {1, 7, 16, 37, 128};

TEST(RecurrentGates, LstmFloatMatchesTheFormula) {
  for (std::int64_t hidden : kUnits) {
    SCOPED_TRACE(hidden);
    Inputs in = draw(hidden, 4, static_cast<unsigned>(hidden));
    std::vector<float> gates = narrow(in.r), c = narrow(in.c), h(in.h.size());
    lstm_gates(gates.data(), narrow(in.a).data(), c.data(), h.data(), hidden);
    std::vector<double> gates64 = in.r, c64 = in.c, h64(in.h.size());
    lstm_gates(gates64.data(), in.a.data(), c64.data(), h64.data(), hidden);
    expect_close(c, c64);
    expect_close(h, h64);
  }
}

TEST(RecurrentGates, GruFloatMatchesTheFormula) {
  for (std::int64_t hidden : kUnits) {
    SCOPED_TRACE(hidden);
    Inputs in = draw(hidden, 3, static_cast<unsigned>(hidden) + 100);
    std::vector<float> r = narrow(in.r), h = narrow(in.h);
    gru_gates(narrow(in.a).data(), r.data(), h.data(), hidden);
    std::vector<double> r64 = in.r, h64 = in.h;
    gru_gates(in.a.data(), r64.data(), h64.data(), hidden);
    expect_close(h, h64);
  }
}

TEST(RecurrentGates, TanhFloatMatchesTheFormula) {
  for (std::int64_t hidden : kUnits) {
    SCOPED_TRACE(hidden);
    Inputs in = draw(hidden, 1, static_cast<unsigned>(hidden) + 200);
    std::vector<float> h(in.h.size());
    tanh_gate(narrow(in.a).data(), narrow(in.r).data(), h.data(), hidden);
    std::vector<double> h64(in.h.size());
    tanh_gate(in.a.data(), in.r.data(), h64.data(), hidden);
    expect_close(h, h64);
  }
}

}  // namespace
}  // namespace symbolite::ops
