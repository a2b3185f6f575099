#include "symbolite/ops/cpu/recurrent_gates.h"

#include <cmath>

#include "symbolite/ops/cpu/vector_math.h"

namespace symbolite::ops {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

void lstm_gates(float* gates, const float* gx, float* c, float* h, std::int64_t hidden) {
  const std::int64_t g4 = 4 * hidden;
  for (std::int64_t j = 0; j < g4; ++j) gates[j] += gx[j];
  float* in = gates;
  float* forget = gates + hidden;
  float* cell = gates + 2 * hidden;
  float* out = gates + 3 * hidden;
  vec::sigmoid_f32(in, in, 2 * hidden);  // the input and forget gates are adjacent
  vec::tanh_f32(cell, cell, hidden);
  vec::sigmoid_f32(out, out, hidden);
  for (std::int64_t j = 0; j < hidden; ++j) c[j] = forget[j] * c[j] + in[j] * cell[j];
  vec::tanh_f32(c, h, hidden);
  for (std::int64_t j = 0; j < hidden; ++j) h[j] = out[j] * h[j];
}

void lstm_gates(const double* gates, const double* gx, double* c, double* h, std::int64_t hidden) {
  for (std::int64_t j = 0; j < hidden; ++j) {
    const double in = sigmoid(gates[j] + gx[j]);
    const double forget = sigmoid(gates[hidden + j] + gx[hidden + j]);
    const double cell = std::tanh(gates[2 * hidden + j] + gx[2 * hidden + j]);
    const double out = sigmoid(gates[3 * hidden + j] + gx[3 * hidden + j]);
    c[j] = forget * c[j] + in * cell;
    h[j] = out * std::tanh(c[j]);
  }
}

void gru_gates(const float* a, float* r, float* h, std::int64_t hidden) {
  float* reset = r;
  float* update = r + hidden;
  float* n = r + 2 * hidden;
  for (std::int64_t j = 0; j < 2 * hidden; ++j) r[j] = a[j] + r[j];
  vec::sigmoid_f32(r, r, 2 * hidden);
  for (std::int64_t j = 0; j < hidden; ++j) n[j] = a[2 * hidden + j] + reset[j] * n[j];
  vec::tanh_f32(n, n, hidden);
  for (std::int64_t j = 0; j < hidden; ++j) h[j] = n[j] + update[j] * (h[j] - n[j]);
}

void gru_gates(const double* a, const double* r, double* h, std::int64_t hidden) {
  for (std::int64_t j = 0; j < hidden; ++j) {
    const double reset = sigmoid(a[j] + r[j]);
    const double update = sigmoid(a[hidden + j] + r[hidden + j]);
    const double n = std::tanh(a[2 * hidden + j] + reset * r[2 * hidden + j]);
    h[j] = n + update * (h[j] - n);
  }
}

void tanh_gate(const float* a, const float* r, float* h, std::int64_t hidden) {
  for (std::int64_t j = 0; j < hidden; ++j) h[j] = a[j] + r[j];
  vec::tanh_f32(h, h, hidden);
}

void tanh_gate(const double* a, const double* r, double* h, std::int64_t hidden) {
  for (std::int64_t j = 0; j < hidden; ++j) h[j] = std::tanh(a[j] + r[j]);
}

}  // namespace symbolite::ops
