#include "symbolite/ops/cpu/gemm.h"

#include <cblas.h>
#include <dnnl.h>

#include <limits>

#include "symbolite/support/error.h"

// oneDNN as Debian builds it runs its parallel regions on OpenMP (libgomp, which it loads
// anyway). The thread count is a per-thread OpenMP setting, so each product sets it to one
// for the calling thread only and restores it: a host application's own OpenMP use keeps its
// setting. Declared here rather than through <omp.h>, which clang does not ship without
// libomp-dev; these are the OpenMP C API's own signatures.
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int num_threads);
}

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

class SingleThread {
 public:
  SingleThread() : previous_(omp_get_max_threads()) {
    if (previous_ != 1) omp_set_num_threads(1);
  }
  ~SingleThread() {
    if (previous_ != 1) omp_set_num_threads(previous_);
  }
  SingleThread(const SingleThread&) = delete;
  SingleThread& operator=(const SingleThread&) = delete;

 private:
  int previous_;
};

}  // namespace

void sgemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc) {
  SingleThread one;
  dnnl_status_t status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a,
                                    lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) {
    throw Error(ErrorKind::kInternal,
                "oneDNN sgemm failed with status " + std::to_string(static_cast<int>(status)));
  }
}

void dgemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
           double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
           double beta, double* c, std::int64_t ldc) {
  // One thread: OpenBLAS's serial flavour has none of its own.
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, blas_dim(m), blas_dim(n), blas_dim(k), alpha,
              a, blas_dim(lda), b, blas_dim(ldb), beta, c, blas_dim(ldc));
}

}  // namespace symbolite::ops
