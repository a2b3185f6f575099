// The maximum or minimum of a contiguous run of floats in 16-lane AVX-512 vectors, for
// amax / amin / max / min over a trailing run: GCC leaves std::max's select in scalar MAXSS
// even in a vector build (64 x 4096 at one thread 0.11 ms, PyTorch's vectorized loop 0.016).
#pragma once

#include <cstdint>

namespace symbolite::ops {

// Whether avx512_max_f32 and avx512_min_f32 can run here (the CPU has AVX-512F).
bool has_vector_extremum();

// The largest (max) or smallest (min) of in[0, n), n > 0, with whether a NaN is among them (its
// value is then meaningless: the caller returns the NaN). Among equal zeros, either sign.
struct RunExtremum {
  float value;
  bool nan;
};
RunExtremum avx512_max_f32(const float* in, std::int64_t n);
RunExtremum avx512_min_f32(const float* in, std::int64_t n);

}  // namespace symbolite::ops
