// The running maximum of max pooling, one tap at a time over a row of outputs:
// out[i] = (in[i] > out[i] || isnan(in[i])) ? in[i] : out[i], PyTorch's select (NaN wins).
// 16 lanes of AVX-512 where the CPU has them: the x86-64 baseline build gives the loop 4.
#pragma once

#include <cstdint>

namespace symbolite::ops {

void running_max_f32(const float* in, float* out, std::int64_t n);

}  // namespace symbolite::ops
