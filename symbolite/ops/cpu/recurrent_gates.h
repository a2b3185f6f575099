// The gates of a recurrent cell for one row of a batch, after its two products: PyTorch
// 1.13's formulas (ATen/native/RNN.cpp), float32 a vector at a time with the same SLEEF
// sigmoid and tanh as the aten::sigmoid and aten::tanh kernels (vector_math.h), float64 with
// the C library's exp and tanh. The cells' time went to the C library's expf and tanhf
// before: an LSTM of 128 units spent 42 % of its run there (docs/PERFORMANCE.md).
#pragma once

#include <cstdint>

namespace symbolite::ops {

// LSTM: gates (4H) holds the hidden state's product and bias, gx (4H) the input's; with
// i, f, g, o the four quarters of their sum, c' = sigmoid(f) c + sigmoid(i) tanh(g) and
// h' = sigmoid(o) tanh(c'). Writes c (H) in place and h (H); the float32 form uses gates
// as scratch.
void lstm_gates(float* gates, const float* gx, float* c, float* h, std::int64_t hidden);
void lstm_gates(const double* gates, const double* gx, double* c, double* h, std::int64_t hidden);

// GRU: a (3H) is the input's product and bias, r (3H) the hidden state's; reset and update
// are the sigmoids of a + r's first two thirds, n = tanh(a_n + reset * r_n) and
// h' = n + update * (h - n), written over h (H); the float32 form uses r as scratch.
void gru_gates(const float* a, float* r, float* h, std::int64_t hidden);
void gru_gates(const double* a, const double* r, double* h, std::int64_t hidden);

// Elman RNN with tanh: h' = tanh(a + r), over h (H).
void tanh_gate(const float* a, const float* r, float* h, std::int64_t hidden);
void tanh_gate(const double* a, const double* r, double* h, std::int64_t hidden);

}  // namespace symbolite::ops
