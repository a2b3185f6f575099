// The LAPACK routines the linear-algebra decompositions call, from OpenBLAS (Debian installs
// no lapack.h). Fortran ABI: every argument by pointer, matrices column-major, 32-bit
// integers (OpenBLAS's LP64 build), and after the listed arguments one hidden `size_t`
// length per character argument, as gfortran passes them. PyTorch 1.13's CPU kernels call
// the same routines (the same OpenBLAS here), so factors, signs and pivots agree with its.
// The overloads in `lapack::` pick the s/d routine by element type and return `info`.
#pragma once

#include <cstddef>

extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
             const int* ipiv, float* b, const int* ldb, int* info, std::size_t trans_len);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, std::size_t trans_len);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info,
             std::size_t uplo_len);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info,
             std::size_t uplo_len);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w,
             float* work, const int* lwork, int* iwork, const int* liwork, int* info,
             std::size_t jobz_len, std::size_t uplo_len);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info,
             std::size_t jobz_len, std::size_t uplo_len);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
             const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
             float* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s,
             float* u, const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork,
             int* iwork, int* info, std::size_t jobz_len);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
             double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
             int* iwork, int* info, std::size_t jobz_len);
void sgelsy_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
             const int* ldb, int* jpvt, const float* rcond, int* rank, float* work,
             const int* lwork, int* info);
void dgelsy_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
             const int* ldb, int* jpvt, const double* rcond, int* rank, double* work,
             const int* lwork, int* info);
}

namespace symbolite::ops::lapack {

// A = P L U in place (getrf); info > 0 names the first zero diagonal element of U (1-based).
inline int getrf(int m, int n, float* a, int lda, int* ipiv) {
  int info = 0;
  sgetrf_(&m, &n, a, &lda, ipiv, &info);
  return info;
}
inline int getrf(int m, int n, double* a, int lda, int* ipiv) {
  int info = 0;
  dgetrf_(&m, &n, a, &lda, ipiv, &info);
  return info;
}

// op(A) X = B with A's getrf factors, op by `trans` ('N' or 'T'); X over B.
inline int getrs(char trans, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b,
                 int ldb) {
  int info = 0;
  sgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}
inline int getrs(char trans, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b,
                 int ldb) {
  int info = 0;
  dgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}

// Cholesky factor in the `uplo` ('L' or 'U') triangle; info > 0 is the order of the leading
// minor that is not positive-definite.
inline int potrf(char uplo, int n, float* a, int lda) {
  int info = 0;
  spotrf_(&uplo, &n, a, &lda, &info, 1);
  return info;
}
inline int potrf(char uplo, int n, double* a, int lda) {
  int info = 0;
  dpotrf_(&uplo, &n, a, &lda, &info, 1);
  return info;
}

// Symmetric eigendecomposition (divide and conquer); lwork = liwork = -1 queries the sizes
// into work[0] and iwork[0].
inline int syevd(char jobz, char uplo, int n, float* a, int lda, float* w, float* work, int lwork,
                 int* iwork, int liwork) {
  int info = 0;
  ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  return info;
}
inline int syevd(char jobz, char uplo, int n, double* a, int lda, double* w, double* work,
                 int lwork, int* iwork, int liwork) {
  int info = 0;
  dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  return info;
}

// Householder QR: R on and above the diagonal, the reflectors below it and in tau.
inline int geqrf(int m, int n, float* a, int lda, float* tau, float* work, int lwork) {
  int info = 0;
  sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
  return info;
}
inline int geqrf(int m, int n, double* a, int lda, double* tau, double* work, int lwork) {
  int info = 0;
  dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
  return info;
}

// The first n columns of Q from geqrf's k reflectors (m >= n >= k).
inline int orgqr(int m, int n, int k, float* a, int lda, const float* tau, float* work, int lwork) {
  int info = 0;
  sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
  return info;
}
inline int orgqr(int m, int n, int k, double* a, int lda, const double* tau, double* work,
                 int lwork) {
  int info = 0;
  dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
  return info;
}

// Singular value decomposition (divide and conquer): jobz 'A' full U and VT, 'S' the
// min(m, n) leading vectors, 'N' the values only.
inline int gesdd(char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt,
                 int ldvt, float* work, int lwork, int* iwork) {
  int info = 0;
  sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
  return info;
}
inline int gesdd(char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu,
                 double* vt, int ldvt, double* work, int lwork, int* iwork) {
  int info = 0;
  dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
  return info;
}

// Least squares by QR with column pivoting; the solution over B's first n rows.
inline int gelsy(int m, int n, int nrhs, float* a, int lda, float* b, int ldb, int* jpvt,
                 float rcond, int* rank, float* work, int lwork) {
  int info = 0;
  sgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, &info);
  return info;
}
inline int gelsy(int m, int n, int nrhs, double* a, int lda, double* b, int ldb, int* jpvt,
                 double rcond, int* rank, double* work, int lwork) {
  int info = 0;
  dgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, &info);
  return info;
}

}  // namespace symbolite::ops::lapack
