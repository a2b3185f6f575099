#include "symbolite/ops/cpu/gemm.h"

#include <cblas.h>
#include <dnnl.h>

#include <algorithm>
#include <cmath>
#include <functional>
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

// Multiply-adds a block of a product takes at least: below, handing blocks to workers costs
// more than it saves (a 64x64x64 product takes ~10 us on one core).
constexpr std::int64_t kGemmMultiplyAddsPerBlock = std::int64_t{1} << 18;

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

// Calls block(first, last) for up to `pieces` ranges of [0, total), whole units of `unit` but
// the last, which takes what is left; the ranges spread over the threads, each computed alone.
void by_pieces(std::int64_t total, std::int64_t unit, int pieces,
               const std::function<void(std::int64_t, std::int64_t)>& block) {
  const std::int64_t units = std::max<std::int64_t>(1, total / unit);
  const std::int64_t count = std::min<std::int64_t>(pieces, units);
  parallel_for(count, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t p = begin; p < end; ++p) {
      const std::int64_t first = units * p / count * unit;
      const std::int64_t last = p + 1 == count ? total : units * (p + 1) / count * unit;
      block(first, last);
    }
  });
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
  const int pieces = fixed_pieces(m * n * k, kGemmMultiplyAddsPerBlock);
  if (pieces <= 1)
    return sgemm_block(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  // Blocks of C's rows (with A's) or of its columns (with B's), whichever is longer, each
  // computed alone: oneDNN's bits for an element depend on the block's shape (without AVX-512
  // even a block of 2 of 12544 columns differs from the whole; with it, one-row or
  // one-column blocks and, with B transposed, blocks of fewer than 16 rows do: gemm_test.cpp),
  // so the blocks are the same at every thread count (fixed_pieces). Each block packs the
  // other operand whole: cutting the longer side, that is the smaller (a linear layer over 50
  // rows of x W^T cut by rows packed its 2 MB of weights once a block: 1.2x the product's time
  // on one thread). Rows and columns go in units of 16 (columns so each block's rows start on a
  // vector); the last block takes what is left, so none is a lone row or column.
  constexpr std::int64_t kUnit = 16;
  if (m >= n) {
    by_pieces(m, kUnit, pieces, [&](std::int64_t first, std::int64_t last) {
      const float* a_block = trans_a ? a + first : a + first * lda;
      sgemm_block(trans_a, trans_b, last - first, n, k, alpha, a_block, lda, b, ldb, beta,
                  c + first * ldc, ldc);
    });
  } else {
    by_pieces(n, kUnit, pieces, [&](std::int64_t first, std::int64_t last) {
      const float* b_block = trans_b ? b + first * ldb : b + first;
      sgemm_block(trans_a, trans_b, m, last - first, k, alpha, a, lda, b_block, ldb, beta,
                  c + first, ldc);
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
