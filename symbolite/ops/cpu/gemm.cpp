#include "symbolite/ops/cpu/gemm.h"

#include <cblas.h>
#include <dnnl.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "symbolite/ops/cpu/gemv.h"
#include "symbolite/ops/cpu/single_openmp_thread.h"
#include "symbolite/support/error.h"
#include "symbolite/support/float_control.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace {

// BLAS dimensions are int: larger products are refused rather than truncated.
int blas_dim(std::int64_t v) {
  if (v < 0 || v > std::numeric_limits<int>::max()) {
    throw Error(ErrorKind::kLimit,
                "matrix dimension " + std::to_string(v) + " exceeds the BLAS int range");
  }
  return static_cast<int>(v);
}

// Multiply-adds below which a product runs on one thread: handing blocks to workers costs
// more than it saves (a 64x64x64 product takes ~10 us on one core).
constexpr std::int64_t kGemmMultiplyAddsPerThread = std::int64_t{1} << 18;

void sgemm_block(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                 float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                 float beta, float* c, std::int64_t ldc) {
  SingleOpenMpThread one;
  dnnl_status_t status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a,
                                    lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) {
    throw Error(ErrorKind::kInternal,
                "oneDNN sgemm failed with status " + std::to_string(static_cast<int>(status)));
  }
}

}  // namespace

void sgemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
           const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
           std::int64_t ldc) {
  SubnormalOperandsAsZero subnormals;  // on the workers too: parallel_for passes it on
  // A NaN alpha makes every element NaN (IEEE, and PyTorch's); oneDNN's reference GEMM, which
  // CPUs without AVX run, computes as if alpha were 1.
  if (std::isnan(alpha) && k > 0) {
    for (std::int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, alpha);
    return;
  }
  // One row of A (linear on a batch of one): dot products rather than a GEMM (gemv.h).
  if (m == 1 && !trans_a && n > 0 && k > 0 && sgemv(trans_b, n, k, alpha, a, b, ldb, beta, c)) {
    return;
  }
  // One contiguous column of B and of C (a 1x1 convolution on a 1x1 image: a
  // squeeze-and-excitation block's): C^T = B^T A^T, dot products of A's rows with B.
  if (n == 1 && !trans_a && !trans_b && ldb == 1 && ldc == 1 && m > 0 && k > 0 &&
      sgemv(true, m, k, alpha, b, a, lda, beta, c)) {
    return;
  }
  const int threads = threads_for(m * n * k, kGemmMultiplyAddsPerThread);
  if (threads <= 1)
    return sgemm_block(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  // Blocks of C's rows (with A's) or of its columns (with B's), whichever is longer; each
  // element of C is still one dot product over all of k, with the same bits as in the whole
  // product, for blocks of two or more rows or columns: oneDNN computes a one-row or
  // one-column product as dot products, with other bits (gemm_test.cpp). A lone row or
  // column left over goes with the last block. With B transposed (x W^T), oneDNN takes
  // another kernel for fewer than 16 rows, and column ranges keep their bits only for some
  // shapes (under 101 columns from k = 1024, over 100 at k = 800 and m = 100): rows then,
  // in blocks of 16 or more, wherever there are two such blocks.
  const std::int64_t row_unit = trans_b ? 16 : 2;
  if (m >= n || (trans_b && m >= 2 * row_unit)) {
    const std::int64_t units = std::max<std::int64_t>(1, m / row_unit);
    parallel_for(units, grain_for_pieces(units, threads),
                 [&](std::int64_t begin, std::int64_t end) {
                   const std::int64_t first = begin * row_unit;
                   const std::int64_t last = end == units ? m : end * row_unit;
                   const float* a_block = trans_a ? a + first : a + first * lda;
                   sgemm_block(trans_a, trans_b, last - first, n, k, alpha, a_block, lda, b, ldb,
                               beta, c + first * ldc, ldc);
                 });
  } else {
    // Column blocks in multiples of 16 floats, so each block's rows start on a vector.
    const std::int64_t blocks = n % 16 == 1 && n > 16 ? n / 16 : (n + 15) / 16;
    parallel_for(blocks, grain_for_pieces(blocks, threads),
                 [&](std::int64_t begin, std::int64_t end) {
                   const std::int64_t first = begin * 16;
                   const std::int64_t last = end == blocks ? n : end * 16;
                   const float* b_block = trans_b ? b + first * ldb : b + first;
                   sgemm_block(trans_a, trans_b, m, last - first, k, alpha, a, lda, b_block, ldb,
                               beta, c + first, ldc);
                 });
  }
}

void dgemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
           const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta,
           double* c, std::int64_t ldc) {
  // One thread: OpenBLAS's serial flavour has none of its own.
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, blas_dim(m), blas_dim(n), blas_dim(k), alpha, a,
              blas_dim(lda), b, blas_dim(ldb), beta, c, blas_dim(ldc));
}

}  // namespace symbolite::ops
