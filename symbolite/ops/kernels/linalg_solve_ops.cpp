// The LU-based linear algebra, through LAPACK's getrf and getrs: linalg_solve, linalg_inv
// (inverse, inv_ex: the solve against the identity, as PyTorch 1.13 computes it),
// linalg_det / det, linalg_slogdet / slogdet, logdet; and linalg_lstsq (gelsy, PyTorch's CPU
// driver). As PyTorch does, a contiguous A is factored as its transpose (its row-major
// buffer is that transpose's column-major one) and solved with getrs 'T': results agree
// with PyTorch's to rounding, and a singular matrix's error names the same diagonal element.
#include <algorithm>
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
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// getrf of each n x n matrix of `a`, or of its transpose when `a` is contiguous.
template <typename T>
struct LuFactors {
  Tensor lu;  // column-major, one matrix after another
  std::vector<int> pivots, infos;
  bool transposed = false;
  std::int64_t n = 0;

  const T* matrix(std::int64_t b) const { return lu.template data<T>() + b * n * n; }
  const int* pivots_of(std::int64_t b) const { return pivots.data() + b * n; }
};

template <typename T>
LuFactors<T> lu_factor(const Tensor& a) {
  LuFactors<T> f;
  f.transposed = a.is_contiguous();
  f.lu = column_major_copy(f.transposed ? matrix_transpose(a) : a);
  f.n = a.sizes().back();
  const std::int64_t count = batch_count(a);
  f.pivots.assign(static_cast<std::size_t>(count * f.n), 0);
  f.infos.assign(static_cast<std::size_t>(count), 0);
  const int n = lapack_int(f.n);
  if (n == 0) return f;
  T* data = f.lu.template mutable_data<T>();
  for (std::int64_t b = 0; b < count; ++b) {
    f.infos[b] = lapack::getrf(n, n, data + b * f.n * f.n, n, f.pivots.data() + b * f.n);
  }
  return f;
}

// For each matrix of the batch shape `to`, the index of the matrix of `from` (broadcast to
// it) it uses.
Ints broadcast_batch_index(const Ints& from, const Ints& to) {
  Ints strides(to.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t i = 0; i < from.size(); ++i) {
    const std::size_t d_from = from.size() - 1 - i, d_to = to.size() - 1 - i;
    if (from[d_from] != 1) strides[d_to] = stride;
    stride *= from[d_from];
  }
  std::int64_t total = 1;
  for (std::int64_t s : to) total *= s;
  Ints index(static_cast<std::size_t>(total), 0);
  Ints position(to.size(), 0);
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < to.size(); ++d) offset += position[d] * strides[d];
    index[i] = offset;
    for (std::size_t d = to.size(); d-- > 0;) {
      if (++position[d] < to[d]) break;
      position[d] = 0;
    }
  }
  return index;
}

// X with A X = B (left) or X A = B, the right-hand sides `b` already broadcast to their
// batch shape: getrs on A's factors (transposed when A was), X^T = A^T \ B^T when !left.
template <typename T>
Tensor lu_solve(const LuFactors<T>& f, const Ints& a_batch, const Tensor& b, bool left) {
  Tensor x = column_major_copy(left ? b : matrix_transpose(b));
  if (x.numel() == 0) return left ? x : matrix_transpose(x);
  const bool adjoint = left ? f.transposed : !f.transposed;
  const Ints which = broadcast_batch_index(a_batch, batch_shape(b));
  const int n = lapack_int(f.n), nrhs = lapack_int(x.sizes().back());
  T* data = x.template mutable_data<T>();
  for (std::size_t i = 0; i < which.size(); ++i) {
    lapack::getrs(adjoint ? 'T' : 'N', n, nrhs, f.matrix(which[i]), n, f.pivots_of(which[i]),
                  data + static_cast<std::int64_t>(i) * f.n * nrhs, n);
  }
  return left ? x : matrix_transpose(x);
}

Tensor int32_infos(const std::vector<int>& infos, const Ints& shape) {
  Tensor out = Tensor::uninitialized(shape, DType::kInt32);
  std::copy(infos.begin(), infos.end(), out.mutable_data<std::int32_t>());
  return out;
}

// `t` viewed with `sizes`, broadcasting (stride 0) where it is smaller.
Tensor expand_to(const Tensor& t, const Ints& sizes) {
  return Tensor::from_storage(t.storage(), t.dtype(), sizes, broadcast_strides(t, sizes),
                              t.storage_offset());
}

Tensor unsqueeze_last(const Tensor& t) {
  Ints sizes = t.sizes(), strides = t.strides();
  sizes.push_back(1);
  strides.push_back(1);
  return Tensor::from_storage(t.storage(), t.dtype(), sizes, strides, t.storage_offset());
}

Tensor squeeze_last(const Tensor& t) {
  Ints sizes = t.sizes(), strides = t.strides();
  sizes.pop_back();
  strides.pop_back();
  return Tensor::from_storage(t.storage(), t.dtype(), sizes, strides, t.storage_offset());
}

// (A^-1, infos): the solve against the identity.
std::pair<Tensor, std::vector<int>> inverse_of(const Tensor& a) {
  check_square(a, "linalg.inv");
  check_floating(a, "linalg.inv", false);
  return dispatch_floating(a.dtype(), "linalg_inv", [&](auto tag) {
    using T = decltype(tag);
    const LuFactors<T> f = lu_factor<T>(a);
    Tensor eye = Tensor::empty(a.sizes(), a.dtype());
    T* e = eye.template mutable_data<T>();
    for (std::int64_t b = 0, count = batch_count(a); b < count; ++b) {
      for (std::int64_t i = 0; i < f.n; ++i) e[(b * f.n + i) * f.n + i] = T(1);
    }
    return std::make_pair(lu_solve<T>(f, batch_shape(a), eye, true), f.infos);
  });
}

// linalg_inv(A) and inverse(self)
void linalg_inv(Stack& s) {
  IValue a = pop(s);
  auto [inverse, infos] = inverse_of(a.to_tensor());
  check_lapack_infos(infos, "linalg.inv", a.to_tensor().dim() == 2);
  s.emplace_back(std::move(inverse));
}

// linalg_inv_ex(A, *, check_errors=False) -> (inverse, info)
void linalg_inv_ex(Stack& s) {
  IValue check_errors = pop(s), a = pop(s);
  const Tensor& t = a.to_tensor();
  auto [inverse, infos] = inverse_of(t);
  if (check_errors.to_bool()) check_lapack_infos(infos, "linalg.inv_ex", t.dim() == 2);
  s.emplace_back(std::move(inverse));
  s.emplace_back(int32_infos(infos, batch_shape(t)));
}

// linalg_solve(A, B, *, left=True): B a (batch of) vector(s) when it has A's shape without
// the last dimension (NumPy's rule); batch dimensions broadcast.
void linalg_solve(Stack& s) {
  IValue left_v = pop(s), b_v = pop(s), a_v = pop(s);
  const Tensor& a = a_v.to_tensor();
  const Tensor& b = b_v.to_tensor();
  const bool left = left_v.to_bool();
  check_floating(a, "linalg.solve");
  if (a.dtype() != b.dtype()) {
    fail(fmt::format(
        "linalg.solve: Expected A and B to have the same dtype, but found A of type {} and B of "
        "type {} instead",
        tensor::scalar_type_name(a.dtype()), tensor::scalar_type_name(b.dtype())));
  }
  const bool vector_case =
      b.dim() == 1 || (a.dim() >= 1 && a.dim() - 1 == b.dim() &&
                       Ints(a.sizes().begin(), a.sizes().end() - 1) == b.sizes());
  const Tensor b2 = vector_case ? unsqueeze_last(b) : b;
  check_square(a, "linalg.solve");
  check_is_matrix(b2, "linalg.solve", "B");
  const std::int64_t n = a.sizes().back();
  const std::int64_t b_rows = b2.sizes()[b2.sizes().size() - 2], b_cols = b2.sizes().back();
  if (n != (left ? b_rows : b_cols)) {
    fail(fmt::format(
        "linalg.solve: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})",
        left ? "AX = B" : "XA = B", n, n, b_rows, b_cols));
  }
  Ints batch = tensor::broadcast_shapes(batch_shape(b2), batch_shape(a));
  if (!left && vector_case) {
    fail(
        "linalg.solve: Vector broadcasting of the left hand side is not supported for "
        "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)");
  }
  batch.push_back(b_rows);
  batch.push_back(b_cols);
  const Tensor rhs = expand_to(b2, batch);
  Tensor x = dispatch_floating(a.dtype(), "linalg_solve", [&](auto tag) {
    using T = decltype(tag);
    const LuFactors<T> f = lu_factor<T>(a);
    Tensor solution = lu_solve<T>(f, batch_shape(a), rhs, left);
    check_lapack_infos(f.infos, "torch.linalg.solve", a.dim() == 2);
    return solution;
  });
  s.emplace_back(vector_case ? squeeze_last(x) : x);
}

// PyTorch's lu_det_P: -1 for an odd number of row exchanges.
int pivot_sign(const int* pivots, std::int64_t n) {
  int sign = 1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (pivots[i] != i + 1) sign = -sign;
  }
  return sign;
}

// linalg_det(A) and det(self): the pivots' sign times the product of U's diagonal (a
// singular matrix gives 0, no error).
void linalg_det(Stack& s) {
  IValue a_v = pop(s);
  const Tensor& a = a_v.to_tensor();
  check_square(a, "linalg.det");
  check_floating(a, "linalg.det");
  Tensor out = Tensor::uninitialized(batch_shape(a), a.dtype());
  dispatch_floating(a.dtype(), "linalg_det", [&](auto tag) {
    using T = decltype(tag);
    const LuFactors<T> f = lu_factor<T>(a);
    T* dst = out.template mutable_data<T>();
    for (std::int64_t b = 0, count = batch_count(a); b < count; ++b) {
      T product(1);
      for (std::int64_t i = 0; i < f.n; ++i) product *= f.matrix(b)[i * f.n + i];
      dst[b] = static_cast<T>(pivot_sign(f.pivots_of(b), f.n)) * product;
    }
  });
  s.emplace_back(std::move(out));
}

// (sign, log|det|) of each matrix: sign the product of sgn(U's diagonal) and the pivots'
// sign (±0 for a singular matrix, whose log|det| is -inf).
std::pair<Tensor, Tensor> slogdet_of(const Tensor& a, const char* name) {
  check_square(a, name);
  check_floating(a, name, false);
  Tensor sign = Tensor::uninitialized(batch_shape(a), a.dtype());
  Tensor logabs = Tensor::uninitialized(batch_shape(a), a.dtype());
  dispatch_floating(a.dtype(), "linalg_slogdet", [&](auto tag) {
    using T = decltype(tag);
    const LuFactors<T> f = lu_factor<T>(a);
    T* sg = sign.template mutable_data<T>();
    T* la = logabs.template mutable_data<T>();
    for (std::int64_t b = 0, count = batch_count(a); b < count; ++b) {
      T sgn_product(1), log_sum(0);
      for (std::int64_t i = 0; i < f.n; ++i) {
        const T d = f.matrix(b)[i * f.n + i];
        sgn_product *= d > T(0) ? T(1) : d < T(0) ? T(-1) : T(0);
        log_sum += std::log(std::abs(d));
      }
      sg[b] = sgn_product * static_cast<T>(pivot_sign(f.pivots_of(b), f.n));
      la[b] = log_sum;
    }
  });
  return {sign, logabs};
}

// linalg_slogdet(A) and slogdet(self) -> (sign, logabsdet)
void linalg_slogdet(Stack& s) {
  IValue a = pop(s);
  auto [sign, logabs] = slogdet_of(a.to_tensor(), "linalg.slogdet");
  s.emplace_back(std::move(sign));
  s.emplace_back(std::move(logabs));
}

// logdet(self): log|det|, NaN where the determinant is negative.
void logdet(Stack& s) {
  IValue a = pop(s);
  const std::pair<Tensor, Tensor> r = slogdet_of(a.to_tensor(), "logdet");
  dispatch_floating(r.second.dtype(), "logdet", [&](auto tag) {
    using T = decltype(tag);
    const T* sign = r.first.template data<T>();
    T* logabs = r.second.template mutable_data<T>();
    for (std::int64_t i = 0; i < r.second.numel(); ++i) {
      if (sign[i] == T(-1)) logabs[i] = std::numeric_limits<T>::quiet_NaN();
    }
  });
  s.emplace_back(r.second);
}

// linalg_lstsq(self, b, rcond=None, *, driver=None) -> (solution, residuals, rank,
// singular_values), with gelsy (PyTorch's CPU default; the other drivers are not here):
// residuals and singular values are empty for it, rank is computed. rcond defaults to
// eps * max(m, n).
void linalg_lstsq(Stack& s) {
  IValue driver = pop(s), rcond_v = pop(s), other_v = pop(s), self_v = pop(s);
  const Tensor& a = self_v.to_tensor();
  const Tensor& other = other_v.to_tensor();
  if (!driver.is_none() && driver.to_string() != "gelsy") {
    const std::string& d = driver.to_string();
    if (d != "gels" && d != "gelsd" && d != "gelss") {
      fail("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
    }
    throw OpError("NotImplementedError",
                  fmt::format("torch.linalg.lstsq: driver '{}' is not supported by symbolite "
                              "(only gelsy, PyTorch's CPU default)",
                              d));
  }
  if (a.dim() < 2) fail("torch.linalg.lstsq: input must have at least 2 dimensions.");
  if (other.dim() < 1) fail("torch.linalg.lstsq: other must have at least 1 dimension.");
  if (a.dtype() != other.dtype()) {
    fail(fmt::format(
        "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
        "dtype {} and other's dtype {}",
        tensor::scalar_type_name(a.dtype()), tensor::scalar_type_name(other.dtype())));
  }
  const std::int64_t dim_diff = a.dim() - other.dim();
  if (dim_diff < 0 || dim_diff > 1) {
    fail(
        "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
        "(input.dim() - other.dim()) <= 1");
  }
  const Tensor b2 = dim_diff == 1 ? unsqueeze_last(other) : other;
  const std::int64_t m = a.sizes()[a.sizes().size() - 2], n = a.sizes().back();
  if (b2.sizes()[b2.sizes().size() - 2] != m) {
    fail(dim_diff == 1 ? "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
                       : "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  }
  if (a.dtype() != DType::kFloat32 && a.dtype() != DType::kFloat64) {
    fail(fmt::format(
        "torch.linalg.lstsq: only float, double, cfloat and cdouble dtypes are supported, but "
        "got {}",
        tensor::scalar_type_name(a.dtype())));
  }
  const Ints batch = tensor::broadcast_shapes(batch_shape(a), batch_shape(b2));
  const std::int64_t nrhs = b2.sizes().back(), rows = std::max(m, n);
  const double eps = a.dtype() == DType::kFloat32 ? std::numeric_limits<float>::epsilon()
                                                  : std::numeric_limits<double>::epsilon();
  const double rcond = rcond_v.is_none() ? eps * static_cast<double>(rows) : rcond_v.to_double();
  Ints a_sizes = batch, b_sizes = batch, x_sizes = batch;
  a_sizes.insert(a_sizes.end(), {m, n});
  b_sizes.insert(b_sizes.end(), {rows, nrhs});
  x_sizes.insert(x_sizes.end(), {n, nrhs});
  Tensor a_work = column_major_copy(expand_to(a, a_sizes));
  // B in the first m rows of a max(m, n)-row column-major buffer (gelsy writes n rows back).
  Tensor b_work = column_major_empty(b_sizes, a.dtype());
  Ints head_sizes = b_sizes;
  head_sizes[head_sizes.size() - 2] = m;
  copy_into(Tensor::from_storage(b_work.storage(), b_work.dtype(), head_sizes, b_work.strides(), 0),
            expand_to(b2, head_sizes));
  Tensor rank = Tensor::uninitialized(batch, DType::kInt64);
  Tensor solution = column_major_empty(x_sizes, a.dtype());
  dispatch_floating(a.dtype(), "linalg_lstsq_cpu", [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t count = rank.numel();
    T* ad = a_work.template mutable_data<T>();
    T* bd = b_work.template mutable_data<T>();
    std::int64_t* rk = rank.mutable_data<std::int64_t>();
    if (m == 0 || n == 0 || nrhs == 0) {
      std::fill_n(rk, count, 0);
      std::fill_n(solution.template mutable_data<T>(), solution.numel(), T(0));
      return;
    }
    const int im = lapack_int(m), in = lapack_int(n), ir = lapack_int(nrhs);
    const int lda = im, ldb = lapack_int(rows);
    std::vector<int> jpvt(static_cast<std::size_t>(n), 0);
    int rank32 = 0;
    T query(0);
    lapack::gelsy(im, in, ir, ad, lda, bd, ldb, jpvt.data(), static_cast<T>(rcond), &rank32, &query,
                  -1);
    const int lwork = std::max(1, static_cast<int>(std::ceil(query)));
    std::vector<T> work(static_cast<std::size_t>(lwork));
    std::vector<int> infos(static_cast<std::size_t>(count), 0);
    for (std::int64_t i = 0; i < count; ++i) {
      std::fill(jpvt.begin(), jpvt.end(), 0);  // nonzero entries would fix columns
      infos[i] = lapack::gelsy(im, in, ir, ad + i * m * n, lda, bd + i * rows * nrhs, ldb,
                               jpvt.data(), static_cast<T>(rcond), &rank32, work.data(), lwork);
      rk[i] = rank32;
    }
    check_lapack_infos(infos, "torch.linalg.lstsq", a.dim() == 2);
    copy_into(solution,
              Tensor::from_storage(b_work.storage(), b_work.dtype(), x_sizes, b_work.strides(), 0));
  });
  s.emplace_back(dim_diff == 1 ? squeeze_last(solution) : solution);
  s.emplace_back(Tensor::empty({0}, a.dtype()));
  s.emplace_back(std::move(rank));
  s.emplace_back(Tensor::empty({0}, a.dtype()));
}

}  // namespace

void register_linalg_solve_ops(OperatorRegistry& r) {
  const IValue none, no(false), yes(true);
  r.add({"aten::linalg_inv", 1, {}, linalg_inv});
  r.add({"aten::inverse", 1, {}, linalg_inv});
  r.add({"aten::linalg_inv_ex", 2, {no}, linalg_inv_ex});
  r.add({"aten::linalg_solve", 3, {yes}, linalg_solve});
  r.add({"aten::linalg_det", 1, {}, linalg_det});
  r.add({"aten::det", 1, {}, linalg_det});
  r.add({"aten::linalg_slogdet", 1, {}, linalg_slogdet});
  r.add({"aten::slogdet", 1, {}, linalg_slogdet});
  r.add({"aten::logdet", 1, {}, logdet});
  r.add({"aten::linalg_lstsq", 4, {none, none}, linalg_lstsq});
}

}  // namespace symbolite::ops
