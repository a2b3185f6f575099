// What the LAPACK-backed linear-algebra kernels share (linalg_decomposition_ops.cpp,
// linalg_solve_ops.cpp): PyTorch's argument checks with their messages, the batched
// column-major layout LAPACK works in, and PyTorch's report of LAPACK's error codes.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

// checkIsMatrix: "linalg.inv: The input tensor A must have at least 2 dimensions."
void check_is_matrix(const tensor::Tensor& t, std::string_view fn, std::string_view arg = "A");
// squareCheckInputs: the above, then "linalg.inv: A must be batches of square matrices, but
// they are 2 by 3 matrices".
void check_square(const tensor::Tensor& t, std::string_view fn, std::string_view arg = "A");
// checkFloatingOrComplex: "linalg.inv: Expected a floating point or complex tensor as input.
// Got Long", and without `low_precision_ok` "...: Low precision dtypes not supported. Got Half".
void check_floating(const tensor::Tensor& t, std::string_view fn, bool low_precision_ok = true);

// The rows of each matrix of `t` (its size before the last).
inline std::int64_t rows_of(const tensor::Tensor& t) { return t.sizes()[t.sizes().size() - 2]; }

// Sizes `batch` followed by a rows x cols matrix.
inline std::vector<std::int64_t> with_matrix(std::vector<std::int64_t> batch, std::int64_t rows,
                                             std::int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// The sizes before the last two, and how many matrices they hold.
std::vector<std::int64_t> batch_shape(const tensor::Tensor& t);
std::int64_t batch_count(const tensor::Tensor& t);

// A view of `t` with its last two dimensions swapped (PyTorch's .mT).
tensor::Tensor matrix_transpose(const tensor::Tensor& t);

// A new tensor of `sizes` (at least 2) whose matrices are column-major, one after another
// (PyTorch's "batched column-major" results); uninitialized.
tensor::Tensor column_major_empty(std::vector<std::int64_t> sizes, tensor::DType dtype);
// A copy of `t` in that layout, to hand LAPACK (which overwrites its input).
tensor::Tensor column_major_copy(const tensor::Tensor& t);

// A dimension as LAPACK's 32-bit integer; RuntimeError when it does not fit.
int lapack_int(std::int64_t v);

// PyTorch's _linalg_check_errors: the first nonzero code of `infos` (one per matrix) raised
// as torch.linalg's _LinAlgError, worded by the kind of routine `api` names (inv, solve,
// cholesky, svd, eig, lstsq) and prefixed "(Batch element i)" unless the input was one
// matrix.
void check_lapack_infos(std::span<const int> infos, std::string_view api, bool is_matrix);

}  // namespace symbolite::ops
