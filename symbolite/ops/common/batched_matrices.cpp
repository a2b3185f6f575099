#include "symbolite/ops/common/batched_matrices.h"

#include <climits>
#include <utility>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {

using tensor::DType;
using tensor::Tensor;

void check_is_matrix(const Tensor& t, std::string_view fn, std::string_view arg) {
  if (t.dim() < 2) {
    fail(fmt::format("{}: The input tensor {} must have at least 2 dimensions.", fn, arg));
  }
}

void check_square(const Tensor& t, std::string_view fn, std::string_view arg) {
  check_is_matrix(t, fn, arg);
  const std::int64_t rows = t.sizes()[t.sizes().size() - 2], cols = t.sizes().back();
  if (rows != cols) {
    fail(fmt::format("{}: {} must be batches of square matrices, but they are {} by {} matrices",
                     fn, arg, rows, cols));
  }
}

void check_floating(const Tensor& t, std::string_view fn, bool low_precision_ok) {
  const DType d = t.dtype();
  const bool low = d == DType::kFloat16 || d == DType::kBFloat16;
  if (!is_floating(d) && !low) {
    fail(fmt::format("{}: Expected a floating point or complex tensor as input. Got {}", fn,
                     tensor::scalar_type_name(d)));
  }
  if (low && !low_precision_ok) {
    fail(fmt::format("{}: Low precision dtypes not supported. Got {}", fn,
                     tensor::scalar_type_name(d)));
  }
}

std::vector<std::int64_t> batch_shape(const Tensor& t) {
  return {t.sizes().begin(), t.sizes().end() - 2};
}

std::int64_t batch_count(const Tensor& t) {
  std::int64_t n = 1;
  for (std::size_t d = 0; d + 2 < t.sizes().size(); ++d) n *= t.sizes()[d];
  return n;
}

Tensor matrix_transpose(const Tensor& t) {
  std::vector<std::int64_t> sizes = t.sizes(), strides = t.strides();
  const std::size_t n = sizes.size();
  std::swap(sizes[n - 1], sizes[n - 2]);
  std::swap(strides[n - 1], strides[n - 2]);
  return Tensor::from_storage(t.storage(), t.dtype(), std::move(sizes), std::move(strides),
                              t.storage_offset());
}

Tensor column_major_empty(std::vector<std::int64_t> sizes, DType dtype) {
  const std::size_t n = sizes.size();
  std::swap(sizes[n - 1], sizes[n - 2]);
  return matrix_transpose(Tensor::uninitialized(std::move(sizes), dtype));
}

Tensor column_major_copy(const Tensor& t) {
  Tensor out = column_major_empty(t.sizes(), t.dtype());
  copy_into(out, t);
  return out;
}

int lapack_int(std::int64_t v) {
  if (v > INT_MAX) fail(fmt::format("matrix dimension {} is too large for LAPACK", v));
  return static_cast<int>(v);
}

void check_lapack_infos(std::span<const int> infos, std::string_view api, bool is_matrix) {
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const int info = infos[i];
    if (info == 0) continue;
    const std::string where =
        is_matrix ? std::string(api) : fmt::format("{}: (Batch element {})", api, i);
    const auto names = [&](std::string_view kind) {
      return api.find(kind) != std::string_view::npos;
    };
    std::string what;
    if (info == -4 && names("svd")) {
      // LAPACK 3.10's gesdd reports a NaN in its input as argument 4 being wrong.
      what =
          "The algorithm failed to converge because the input matrix contained non-finite "
          "values.";
    } else if (info < 0) {
      what = fmt::format(
          "Argument {} has illegal value. Most certainly there is a bug in the implementation "
          "calling the backend library.",
          -info);
    } else if (names("inv")) {
      what = fmt::format(
          "The diagonal element {} is zero, the inversion could not be completed because the "
          "input matrix is singular.",
          info);
    } else if (names("solve")) {
      what = "The solver failed because the input matrix is singular.";
    } else if (names("cholesky")) {
      what = fmt::format(
          "The factorization could not be completed because the input is not "
          "positive-definite (the leading minor of order {} is not positive-definite).",
          info);
    } else if (names("svd")) {
      what = fmt::format(
          "The algorithm failed to converge because the input matrix is ill-conditioned or has "
          "too many repeated singular values (error code: {}).",
          info);
    } else if (names("eig")) {
      what = fmt::format(
          "The algorithm failed to converge because the input matrix is ill-conditioned or has "
          "too many repeated eigenvalues (error code: {}).",
          info);
    } else if (names("lstsq")) {
      what = fmt::format(
          "The least squares solution could not be computed because the input matrix does not "
          "have full rank (error code: {}).",
          info);
    } else {
      what = fmt::format("Unknown error code: {}.", info);
    }
    throw OpError("_LinAlgError", fmt::format("{}: {}", where, what));
  }
}

}  // namespace symbolite::ops
