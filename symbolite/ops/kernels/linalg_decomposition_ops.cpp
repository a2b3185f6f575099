// Matrix factorizations through LAPACK, as PyTorch 1.13's CPU kernels call it (same routines,
// same column-major copies, same workspace queries, so the same signs of Q, eigenvectors and
// singular vectors): linalg_cholesky (+ _ex, and the deprecated cholesky) with potrf,
// linalg_eigh / eigvalsh with syevd, linalg_qr with geqrf + orgqr, linalg_svd / svd /
// svdvals with gesdd. What PyTorch composes of them is in linalg_spectral_ops.cpp.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/batched_matrices.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/lapack_routines.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// A LAPACK workspace size from its query (a float), as PyTorch reads it.
template <typename T>
int work_size(T query) {
  return std::max(1, static_cast<int>(query));
}

// ---- Cholesky ----------------------------------------------------------------------------

// The factor in the `upper` or lower triangle (the other zeroed), and potrf's codes.
template <typename T>
Tensor cholesky_factor(const Tensor& a, bool upper, std::vector<int>& infos) {
  Tensor l = column_major_copy(a);
  const std::int64_t n = a.sizes().back(), count = batch_count(a);
  infos.assign(static_cast<std::size_t>(count), 0);
  if (n == 0) return l;
  T* data = l.template mutable_data<T>();
  for (std::int64_t b = 0; b < count; ++b) {
    T* m = data + b * n * n;
    infos[b] = lapack::potrf(upper ? 'U' : 'L', lapack_int(n), m, lapack_int(n));
    for (std::int64_t j = 0; j < n; ++j) {  // column j, column-major
      for (std::int64_t i = 0; i < n; ++i) {
        if (upper ? i > j : i < j) m[j * n + i] = T(0);
      }
    }
  }
  return l;
}

// linalg_cholesky_ex(self, *, upper=False, check_errors=False) -> (L, info); with
// `kRaise`, linalg_cholesky(self, *, upper=False) raising the error instead.
template <bool kRaise>
void linalg_cholesky(Stack& s) {
  IValue check_errors = kRaise ? IValue(true) : pop(s);
  IValue upper = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  check_square(a, "linalg.cholesky");
  check_floating(a, "linalg.cholesky");
  std::vector<int> infos;
  Tensor l = dispatch_floating(a.dtype(), "cholesky_cpu", [&](auto tag) {
    return cholesky_factor<decltype(tag)>(a, upper.to_bool(), infos);
  });
  if (check_errors.to_bool()) {
    check_lapack_infos(infos, kRaise ? "linalg.cholesky" : "linalg.cholesky_ex", a.dim() == 2);
  }
  s.emplace_back(std::move(l));
  if (!kRaise) {
    Tensor info = Tensor::uninitialized(batch_shape(a), DType::kInt32);
    std::copy(infos.begin(), infos.end(), info.mutable_data<std::int32_t>());
    s.emplace_back(std::move(info));
  }
}

// cholesky(self, upper=False): the deprecated form; an empty input is returned as zeros
// before any check, and other dtypes fail in the dispatch.
void cholesky(Stack& s) {
  IValue upper = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  if (a.numel() == 0) {
    s.emplace_back(Tensor::empty(a.sizes(), a.dtype()));
    return;
  }
  check_square(a, "cholesky");
  std::vector<int> infos;
  Tensor l = dispatch_floating(a.dtype(), "cholesky_cpu", [&](auto tag) {
    return cholesky_factor<decltype(tag)>(a, upper.to_bool(), infos);
  });
  check_lapack_infos(infos, "cholesky", a.dim() == 2);
  s.emplace_back(std::move(l));
}

// ---- Symmetric eigendecomposition ----------------------------------------------------------

// (eigenvalues ascending, eigenvectors as columns or an empty tensor) from the `uplo`
// triangle.
std::pair<Tensor, Tensor> eigh(const Tensor& a, const std::string& uplo, bool vectors) {
  check_square(a, "linalg.eigh");
  const char u = uplo.empty() ? ' ' : static_cast<char>(std::toupper(uplo[0]));
  if (uplo.size() != 1 || (u != 'U' && u != 'L')) {
    fail(fmt::format("Expected UPLO argument to be 'L' or 'U', but got {}", uplo));
  }
  return dispatch_floating(a.dtype(), "linalg_eigh_cpu", [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t n = a.sizes().back(), count = batch_count(a);
    Ints value_sizes = batch_shape(a);
    value_sizes.push_back(n);
    Tensor values = Tensor::uninitialized(value_sizes, a.dtype());
    Tensor v = column_major_copy(a);
    if (n > 0 && count > 0) {
      const char jobz = vectors ? 'V' : 'N';
      const int in = lapack_int(n);
      T* vd = v.template mutable_data<T>();
      T* w = values.template mutable_data<T>();
      T work_query(0);
      int iwork_query = 0;
      lapack::syevd(jobz, u, in, vd, in, w, &work_query, -1, &iwork_query, -1);
      const int lwork = work_size(work_query), liwork = std::max(1, iwork_query);
      std::vector<T> work(static_cast<std::size_t>(lwork));
      std::vector<int> iwork(static_cast<std::size_t>(liwork));
      std::vector<int> infos(static_cast<std::size_t>(count), 0);
      for (std::int64_t b = 0; b < count; ++b) {
        infos[b] = lapack::syevd(jobz, u, in, vd + b * n * n, in, w + b * n, work.data(), lwork,
                                 iwork.data(), liwork);
        if (infos[b] != 0) break;  // PyTorch stops at the first failure too
      }
      check_lapack_infos(infos, "linalg.eigh", a.dim() == 2);
    }
    return std::make_pair(values, vectors ? v : Tensor::empty({0}, a.dtype()));
  });
}

// linalg_eigh(self, UPLO="L") -> (eigenvalues, eigenvectors)
void linalg_eigh(Stack& s) {
  IValue uplo = pop(s), self = pop(s);
  auto [values, vectors] = eigh(self.to_tensor(), uplo.to_string(), true);
  s.emplace_back(std::move(values));
  s.emplace_back(std::move(vectors));
}

void linalg_eigvalsh(Stack& s) {
  IValue uplo = pop(s), self = pop(s);
  s.emplace_back(eigh(self.to_tensor(), uplo.to_string(), false).first);
}

// ---- QR ------------------------------------------------------------------------------------

// linalg_qr(A, mode="reduced") -> (Q, R): Q m x k and R k x n ("reduced"), Q m x m and R
// m x n ("complete"), or an empty Q and R k x n ("r"), k = min(m, n).
void linalg_qr(Stack& s) {
  IValue mode_v = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const std::string& mode = mode_v.to_string();
  check_is_matrix(a, "linalg.qr");
  check_floating(a, "linalg.qr");
  if (mode != "reduced" && mode != "complete" && mode != "r") {
    fail(fmt::format(
        "qr received unrecognized mode '{}' but expected one of 'reduced' (default), 'r', or "
        "'complete'",
        mode));
  }
  const bool compute_q = mode != "r", complete = mode == "complete";
  const std::int64_t m = rows_of(a), n = a.sizes().back(), k = std::min(m, n);
  const std::int64_t count = batch_count(a), r_rows = complete ? m : k, q_cols = complete ? m : k;
  Tensor r = column_major_empty(with_matrix(batch_shape(a), r_rows, n), a.dtype());
  Tensor q = compute_q ? column_major_empty(with_matrix(batch_shape(a), m, q_cols), a.dtype())
                       : Tensor::empty({0}, a.dtype());
  dispatch_floating(a.dtype(), "geqrf_cpu", [&](auto tag) {
    using T = decltype(tag);
    Tensor qr = column_major_copy(a);
    T* qrd = qr.template mutable_data<T>();
    std::vector<T> tau(static_cast<std::size_t>(std::max<std::int64_t>(1, count * k)));
    const int im = lapack_int(m), in = lapack_int(n), lda = std::max(1, im);
    if (m > 0 && n > 0 && count > 0) {
      T query(0);
      lapack::geqrf(im, in, qrd, lda, tau.data(), &query, -1);
      const int lwork = std::max(in, work_size(query));
      std::vector<T> work(static_cast<std::size_t>(lwork));
      for (std::int64_t b = 0; b < count; ++b) {
        lapack::geqrf(im, in, qrd + b * m * n, lda, tau.data() + b * k, work.data(), lwork);
      }
    }
    T* rd = r.template mutable_data<T>();
    for (std::int64_t b = 0; b < count; ++b) {
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t i = 0; i < r_rows; ++i) {
          rd[(b * n + j) * r_rows + i] = i <= j ? qrd[(b * n + j) * m + i] : T(0);
        }
      }
    }
    if (!compute_q || q.numel() == 0) return;
    // Q's first columns hold the reflectors; orgqr turns them into Q's columns.
    T* qd = q.template mutable_data<T>();
    const std::int64_t copied = std::min(n, q_cols);
    for (std::int64_t b = 0; b < count; ++b) {
      std::copy_n(qrd + b * m * n, copied * m, qd + b * m * q_cols);
    }
    const int iq = lapack_int(q_cols), ik = lapack_int(k);
    T query(0);
    lapack::orgqr(im, iq, ik, qd, lda, tau.data(), &query, -1);
    const int lwork = work_size(query);
    std::vector<T> work(static_cast<std::size_t>(lwork));
    for (std::int64_t b = 0; b < count; ++b) {
      lapack::orgqr(im, iq, ik, qd + b * m * q_cols, lda, tau.data() + b * k, work.data(), lwork);
    }
  });
  s.emplace_back(std::move(q));
  s.emplace_back(std::move(r));
}

// ---- SVD -----------------------------------------------------------------------------------

struct Svd {
  Tensor u, s, vh;  // u and vh empty when not computed
};

// PyTorch's _linalg_svd: U m x (m or k), S descending, Vh (n or k) x n; an empty input
// gives identity U and Vh when full.
Svd svd_of(const Tensor& a, bool full, bool compute_uv) {
  check_is_matrix(a, "linalg.svd");
  check_floating(a, "linalg.svd");
  const std::int64_t m = rows_of(a), n = a.sizes().back(), k = std::min(m, n);
  const std::int64_t count = batch_count(a);
  const std::int64_t u_cols = full ? m : k, vh_rows = full ? n : k;
  Svd r;
  Ints s_sizes = batch_shape(a);
  s_sizes.push_back(k);
  r.s = Tensor::uninitialized(s_sizes, a.dtype());
  r.u = compute_uv ? column_major_empty(with_matrix(batch_shape(a), m, u_cols), a.dtype())
                   : Tensor::empty({0}, a.dtype());
  r.vh = compute_uv ? column_major_empty(with_matrix(batch_shape(a), vh_rows, n), a.dtype())
                    : Tensor::empty({0}, a.dtype());
  dispatch_floating(a.dtype(), "linalg_svd_cpu", [&](auto tag) {
    using T = decltype(tag);
    if (a.numel() == 0) {
      for (Tensor* t : {&r.u, &r.vh}) {
        if (!compute_uv) break;
        T* d = t->template mutable_data<T>();
        const std::int64_t rows = rows_of(*t), cols = t->sizes().back();
        std::fill_n(d, t->numel(), T(0));
        if (full) {
          for (std::int64_t i = 0; i < count * std::min(rows, cols); ++i) {
            d[(i / rows) * rows * cols + (i % rows) * (rows + 1)] = T(1);
          }
        }
      }
      return;
    }
    Tensor work_a = column_major_copy(a);
    const char jobz = compute_uv ? (full ? 'A' : 'S') : 'N';
    const int im = lapack_int(m), in = lapack_int(n);
    const int ldu = compute_uv ? im : 1, ldvt = compute_uv ? lapack_int(vh_rows) : 1;
    T* ad = work_a.template mutable_data<T>();
    T* sd = r.s.template mutable_data<T>();
    T* ud = compute_uv ? r.u.template mutable_data<T>() : nullptr;
    T* vd = compute_uv ? r.vh.template mutable_data<T>() : nullptr;
    std::vector<int> iwork(static_cast<std::size_t>(8 * k));
    T query(0);
    lapack::gesdd(jobz, im, in, ad, im, sd, ud, ldu, vd, ldvt, &query, -1, iwork.data());
    const int lwork = work_size(query);
    std::vector<T> work(static_cast<std::size_t>(lwork));
    std::vector<int> infos(static_cast<std::size_t>(count), 0);
    for (std::int64_t b = 0; b < count; ++b) {
      infos[b] = lapack::gesdd(
          jobz, im, in, ad + b * m * n, im, sd + b * k, compute_uv ? ud + b * m * u_cols : nullptr,
          ldu, compute_uv ? vd + b * vh_rows * n : nullptr, ldvt, work.data(), lwork, iwork.data());
    }
    check_lapack_infos(infos, "linalg.svd", a.dim() == 2);
  });
  return r;
}

void check_no_driver(const IValue& driver) {
  if (!driver.is_none()) {
    fail(
        "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
        "cuSOLVER backend.");
  }
}

// linalg_svd(A, full_matrices=True, *, driver=None) -> (U, S, Vh)
void linalg_svd(Stack& s) {
  IValue driver = pop(s), full = pop(s), self = pop(s);
  Svd r = svd_of(self.to_tensor(), full.to_bool(), true);
  check_no_driver(driver);
  s.emplace_back(std::move(r.u));
  s.emplace_back(std::move(r.s));
  s.emplace_back(std::move(r.vh));
}

void linalg_svdvals(Stack& s) {
  IValue driver = pop(s), self = pop(s);
  Svd r = svd_of(self.to_tensor(), false, false);
  check_no_driver(driver);
  s.emplace_back(std::move(r.s));
}

// svd(self, some=True, compute_uv=True) -> (U, S, V): V = Vh^T; without compute_uv, U and V
// are zeros of m x m and n x n.
std::tuple<Tensor, Tensor, Tensor> svd_legacy(const Tensor& a, bool some, bool compute_uv) {
  if (a.dim() < 2) {
    fail(fmt::format(
        "linalg.svd: input should have at least 2 dimensions, but has {} dimensions instead",
        a.dim()));
  }
  if (compute_uv) {
    Svd r = svd_of(a, !some, true);
    return {r.u, r.s, matrix_transpose(r.vh)};
  }
  Svd r = svd_of(a, false, false);
  const std::int64_t m = rows_of(a), n = a.sizes().back();
  return {Tensor::empty(with_matrix(batch_shape(a), m, m), a.dtype()), r.s,
          Tensor::empty(with_matrix(batch_shape(a), n, n), a.dtype())};
}

void svd(Stack& s) {
  IValue compute_uv = pop(s), some = pop(s), self = pop(s);
  auto [u, values, v] = svd_legacy(self.to_tensor(), some.to_bool(), compute_uv.to_bool());
  s.emplace_back(std::move(u));
  s.emplace_back(std::move(values));
  s.emplace_back(std::move(v));
}

}  // namespace

void register_linalg_decomposition_ops(OperatorRegistry& r) {
  const IValue none, no(false), yes(true), lower = IValue::string("L");
  r.add({"aten::linalg_cholesky", 2, {no}, linalg_cholesky<true>});
  r.add({"aten::linalg_cholesky_ex", 3, {no, no}, linalg_cholesky<false>});
  r.add({"aten::cholesky", 2, {no}, cholesky});
  r.add({"aten::linalg_eigh", 2, {lower}, linalg_eigh});
  r.add({"aten::linalg_eigvalsh", 2, {lower}, linalg_eigvalsh});
  r.add({"aten::linalg_qr", 2, {IValue::string("reduced")}, linalg_qr});
  r.add({"aten::linalg_svd", 3, {yes, none}, linalg_svd});
  r.add({"aten::linalg_svdvals", 2, {none}, linalg_svdvals});
  r.add({"aten::svd", 3, {yes, yes}, svd});
}

}  // namespace symbolite::ops
