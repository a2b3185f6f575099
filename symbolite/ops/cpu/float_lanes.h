// GCC vector types of one AVX-512, AVX2 or SSE register of floats, with unaligned loads and
// stores, for kernels written once over the vector width and instantiated inside functions
// built for each instruction set (`__attribute__((target(...)))`: depthwise_interleaved.cpp,
// depthwise_direct.cpp). Everything is always inlined into those functions, so no vector value
// crosses a call between code built for different instruction sets.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <vector>

namespace symbolite::ops::simd {

using Vec16 = float __attribute__((vector_size(64)));
using Vec8 = float __attribute__((vector_size(32)));
using Vec4 = float __attribute__((vector_size(16)));

// GCC's note that passing such vectors by value changed ABI concerns calls, which the
// always-inlined members below never make.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
template <typename Vec>
struct Lanes {
  static constexpr int L = sizeof(Vec) / sizeof(float);

  [[gnu::always_inline]] static inline Vec load(const float* p) {
    Vec v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  }
  [[gnu::always_inline]] static inline void store(float* p, Vec v) {
    __builtin_memcpy(p, &v, sizeof v);
  }
};
#pragma GCC diagnostic pop

// acc += a * b, rounded once where the instruction set has FMA (AVX-512, AVX2): GCC contracts
// `acc += a * b` into an FMA only when optimizing, so written that way a -O0 build (the
// sanitizer tests') rounded twice and gave other last bits than an optimized build and than
// PyTorch. These take their vectors by reference, as no vector may cross a call between code
// built for different instruction sets; optimized, each call is inlined into the kernel's
// AVX-512 or AVX2 function (they cannot be `always_inline`: the kernels' templates are
// compiled for the baseline before being inlined there). The SSE baseline has no FMA: a
// multiply and an add.
[[gnu::target("avx512f")]] inline void multiply_add(Vec16& acc, const Vec16& a, const Vec16& b) {
  acc = reinterpret_cast<Vec16>(_mm512_fmadd_ps(
      reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(acc)));
}
[[gnu::target("avx2,fma")]] inline void multiply_add(Vec8& acc, const Vec8& a, const Vec8& b) {
  acc = reinterpret_cast<Vec8>(_mm256_fmadd_ps(
      reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(acc)));
}
[[gnu::always_inline]] inline void multiply_add(Vec4& acc, const Vec4& a, const Vec4& b) {
  acc += a * b;
}

// Grows a kernel's per-thread scratch, never shrinking it: every cell the kernel reads it has
// written first, and resizing a shrunk vector up again would zero what grows back on every
// call.
inline void grow(std::vector<float>& scratch, std::int64_t size) {
  if (scratch.size() < static_cast<std::size_t>(size)) {
    scratch.resize(static_cast<std::size_t>(size));
  }
}

// `size` floats of `scratch` (grown as `grow` does) starting on a cache line, for kernels whose
// vectors sit at multiples of their width from the start: none then spans two lines. From
// malloc's 16-byte alignment every 64-byte access of the interleaved depthwise kernel was a
// split one, 15-40 % slower (bench/depthwise_bench.cpp), and by how much changed with whatever
// the heap had allocated before.
inline float* line_aligned(std::vector<float>& scratch, std::int64_t size) {
  constexpr std::size_t kLine = 64;
  grow(scratch, size + static_cast<std::int64_t>(kLine / sizeof(float)));
  const auto address = reinterpret_cast<std::uintptr_t>(scratch.data());
  return scratch.data() + (kLine - address % kLine) % kLine / sizeof(float);
}

}  // namespace symbolite::ops::simd
