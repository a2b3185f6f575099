// Float matrix products for the kernels (linear, mm, bmm, addmm, convolution's GEMM), one
// entry point per dtype so the library behind them is chosen in one place.
//
// float32 goes to oneDNN's sgemm and float64 to OpenBLAS's dgemm: on conv- and
// linear-shaped products oneDNN runs 1.5-3.5x faster than OpenBLAS here (it has AVX-512
// kernels picked at run time; Debian's OpenBLAS 0.3.21 takes its Haswell kernels on this
// CPU), and has no float64 product. bench/gemm_bench.cpp measures both; the figures are in
// docs/PERFORMANCE.md. Large float32 products are split into blocks across
// intra_op_threads() threads (support/parallel_for.h); float64 runs on the calling thread.
// A float32 product whose A is one row (linear on a batch of one) runs as dot products
// instead (gemv.h) where the CPU has AVX-512; one whose B is read-only weight bytes of a
// model file runs on oneDNN's matmul primitive (onednn_matmul.h, chosen by the kernels).
// Every float32 product reads subnormal operands as zero (support/float_control.h: 5-20x
// faster on such inputs; float64 keeps them).
#pragma once

#include <algorithm>
#include <cstdint>

namespace symbolite::ops {

// C (m x n, leading dimension ldc) = alpha * op(A) * op(B) + beta * C, all row-major; op(X)
// is X or its transpose. With beta == 0, C is not read.
void sgemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
           const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
           std::int64_t ldc);
void dgemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
           const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta,
           double* c, std::int64_t ldc);

// sgemm or dgemm by the element type, for kernels templated on it.
inline void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                 float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                 float beta, float* c, std::int64_t ldc) {
  sgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                 double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
                 double beta, double* c, std::int64_t ldc) {
  dgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// out (m x n) = x (m x k) W^T + bias, W (n x k) row-major as nn.Linear stores it, bias (n)
// or null: the bias rows first, then the product added to them (the recurrent layers' step,
// as PyTorch's linear computes it). With an empty operand, out is the bias rows alone (BLAS
// rejects empty operands' leading dimensions).
template <typename T>
void linear_rows(std::int64_t m, std::int64_t n, std::int64_t k, const T* x, const T* w,
                 const T* bias, T* out) {
  for (std::int64_t r = 0; r < m; ++r) {
    if (bias != nullptr) {
      std::copy_n(bias, n, out + r * n);
    } else {
      std::fill_n(out + r * n, n, T(0));
    }
  }
  if (m > 0 && n > 0 && k > 0) gemm(false, true, m, n, k, T(1), x, k, w, k, T(1), out, n);
}

}  // namespace symbolite::ops
