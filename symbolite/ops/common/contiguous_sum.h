// The sum of n contiguous elements in double, over 8 partial sums: one running sum waits on
// each addition's latency; eight independent ones vectorize. Global average pooling and
// sum / mean over trailing dims (a classifier head's mean over H and W) use it. float32 has
// its own: 16 partial sums in two AVX-512 registers where the CPU has them (the template
// compiles for the x86-64 baseline, 2 doubles a vector: a 7x7 plane took 15 ns).
#pragma once

#include <cstdint>
#include <vector>

#include "symbolite/ops/cpu/element_runs.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

template <typename T>
double contiguous_sum(const T* in, std::int64_t n) {
  constexpr std::int64_t kLanes = 8;
  double part[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (std::int64_t l = 0; l < kLanes; ++l) part[l] += static_cast<double>(in[i + l]);
  }
  double sum = 0;
  for (double p : part) sum += p;
  for (; i < n; ++i) sum += static_cast<double>(in[i]);
  return sum;
}

double contiguous_sum(const float* in, std::int64_t n);

// The sum of (p[i] - m)^2 over p[0, n), in double: eight partial sums (i modulo 8) added at
// the end, so that no addition waits on the one before and the compiler can take them in
// vectors (a group norm's 32K-element group took 4 cycles an element); the sums themselves
// are contiguous_sum's. Group norm and std / var over trailing dimensions use it.
constexpr int kPartialSums = 8;
template <typename T>
SYMBOLITE_ELEMENT_CLONES double squares_about(const T* p, std::int64_t n, double m) {
  double part[kPartialSums] = {};
  std::int64_t i = 0;
  for (; i + kPartialSums <= n; i += kPartialSums) {
    for (int j = 0; j < kPartialSums; ++j) {
      const double d = static_cast<double>(p[i + j]) - m;
      part[j] += d * d;
    }
  }
  for (; i < n; ++i) {
    const double d = static_cast<double>(p[i]) - m;
    part[0] += d * d;
  }
  double sum = 0;
  for (double v : part) sum += v;
  return sum;
}

// Whether the dims in `mask` are the trailing ones of contiguous `t` (at least one), so that
// each result of a reduction over them is one contiguous run of elements.
bool reduces_trailing_run(const tensor::Tensor& t, const std::vector<bool>& mask);

// sums[i] += in[r * row_stride + i] for i < n, in double, rows r = 0, 1, ... rows - 1 in
// order: rows of a sum over a middle dimension (each sum its own, added to in row order, so
// the bits of the element-by-element loop). float32 in AVX-512 where the CPU has it.
template <typename T>
void accumulate(const T* in, std::int64_t row_stride, std::int64_t rows, double* sums,
                std::int64_t n) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* row = in + r * row_stride;
    for (std::int64_t i = 0; i < n; ++i) sums[i] += static_cast<double>(row[i]);
  }
}
void accumulate(const float* in, std::int64_t row_stride, std::int64_t rows, double* sums,
                std::int64_t n);

}  // namespace symbolite::ops
