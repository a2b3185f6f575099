// One row of layer normalization over contiguous float32: the mean and the biased variance
// accumulated in double, then y = (x - mean) * rstd * w + b in double, rounded once to float
// (w and b optional). In AVX-512 lanes (8 doubles) where the CPU has them, else plain loops
// (the x86-64 baseline gives them 2 lanes): the statistics are the same sums in another order,
// which double precision leaves in the last bits of float results, if at all.
#pragma once

#include <cstdint>

namespace symbolite::ops {

void layer_norm_row_f32(const float* x, float* y, std::int64_t m, const float* w, const float* b,
                        double eps);
// The same over float64, in plain loops (float64 activations are there for correctness).
void layer_norm_row_f64(const double* x, double* y, std::int64_t m, const double* w,
                        const double* b, double eps);

}  // namespace symbolite::ops
