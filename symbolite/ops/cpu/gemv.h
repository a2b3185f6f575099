// Float32 matrix-vector products: a GEMM whose A is one row (linear on a batch of one, an
// LSTM step). oneDNN's sgemm treats them as GEMMs and reads the weights at about half the
// speed the memory allows (4 MiB of MobileNetV3's classifier: 190 us from memory, 80 from
// cache, against 150 and 43 here); these are dot products over B's rows, or rows of B summed,
// in 16 AVX-512 lanes or 8 of AVX2, a large B prefetched into L2 ahead of its reads.
#pragma once

#include <cstdint>

namespace symbolite::ops {

// c (1 x n) = alpha * a (1 x k) * op(B) + beta * c, B row-major with leading dimension ldb,
// op(B) = B^T when trans_b (B is n x k: c[j] is a dot product with B's row j), else B (k x n).
// With beta == 0, c is not read. Returns false, doing nothing, where the CPU has neither
// AVX-512 nor AVX2 with FMA: the caller then runs its GEMM.
bool sgemv(bool trans_b, std::int64_t n, std::int64_t k, float alpha, const float* a,
           const float* b, std::int64_t ldb, float beta, float* c);

}  // namespace symbolite::ops
