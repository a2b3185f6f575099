// Runs of elements through a scalar function, compiled once per instruction set: GCC's
// target_clones makes an AVX-512, an AVX2 (x86-64-v3: with FMA, so std::fma is one
// instruction) and a baseline (SSE2) copy of each function below and picks one for the CPU at
// load time (an ifunc), so a kernel's element loop, written once as `out[i] = op(x[i])`, runs
// 16 or 8 lanes wide where the CPU has them. The x86-64 baseline
// alone kept such loops at 4 lanes, 1.4-1.6x slower than PyTorch's AVX2 kernels on a 3 MiB
// tensor (threshold, sign). Contraction into FMA is off in the clones: a * b + c keeps its
// two roundings, as in the baseline copy, so results are the same bits on every CPU. Other
// compilers (the clang fuzzing and lint builds) get the baseline loop alone.
#pragma once

#include <cstdint>

#if defined(__SANITIZE_THREAD__)
// Not under ThreadSanitizer: the ifunc resolver runs while the dynamic linker relocates the
// program, before TSan's runtime is up, and its instrumented entry crashes.
#define SYMBOLITE_ELEMENT_CLONES
#elif defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define SYMBOLITE_ELEMENT_CLONES                                        \
  __attribute__((target_clones("avx512f", "arch=x86-64-v3", "default"), \
                 optimize("fp-contract=off")))
#else
#define SYMBOLITE_ELEMENT_CLONES
#endif

namespace symbolite::ops::cpu {

// out[i] = op(x[i]) for i < n (`out` may be `x`).
template <typename In, typename Out, typename Op>
SYMBOLITE_ELEMENT_CLONES void map_run(const In* x, Out* out, std::int64_t n, Op op) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = op(x[i]);
}

// out[i] = op(a[i], b[i]) for i < n (`out` may be `a` or `b`).
template <typename A, typename B, typename Out, typename Op>
SYMBOLITE_ELEMENT_CLONES void zip_run(const A* a, const B* b, Out* out, std::int64_t n, Op op) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
}

// out[i] = op(a[i], b[i], c[i]) for i < n.
template <typename A, typename B, typename C, typename Out, typename Op>
SYMBOLITE_ELEMENT_CLONES void zip3_run(const A* a, const B* b, const C* c, Out* out, std::int64_t n,
                                       Op op) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i], c[i]);
}

// The bitwise or of n bytes (a bool or uint8 mask's: above 1 when an element is neither 0 nor
// 1).
std::uint8_t or_bytes(const std::uint8_t* p, std::int64_t n);

}  // namespace symbolite::ops::cpu
