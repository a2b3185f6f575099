// Matrix products: mm, mv/dot (through matmul), matmul, linear, bilinear, addmm, bmm.
//
// float32 and float64 go to the GEMMs of gemm.h (single-threaded: the runtime runs one op
// at a time on one thread for now); integer dtypes use a plain loop, as PyTorch's own gemm
// fallback does. Operands are passed to the GEMM in place when their strides are a
// row-major or column-major matrix layout (a transposed weight, `weight.t()`, is just a
// transposed operand); anything else is copied contiguous first.
#include <fmt/format.h>

#include <climits>
#include <optional>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/cpu/gemm.h"
#include "symbolite/ops/cpu/onednn_matmul.h"
#include "symbolite/ops/cpu/packed_weight_product.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

// A 2-D operand as BLAS takes it: data, whether it is stored transposed, leading dimension.
template <typename T>
struct BlasMatrix {
  Tensor holder;  // keeps a contiguous copy alive when one was needed
  const T* data = nullptr;
  bool trans = false;
  std::int64_t ld = 1;
};

template <typename T>
BlasMatrix<T> blas_matrix(const Tensor& t) {
  std::int64_t r = t.sizes()[0], c = t.sizes()[1];
  std::int64_t s0 = t.strides()[0], s1 = t.strides()[1];
  BlasMatrix<T> m;
  if ((c <= 1 || s1 == 1) && (r <= 1 || s0 >= std::max<std::int64_t>(c, 1))) {
    m.holder = t;
    m.ld = r <= 1 ? std::max<std::int64_t>(c, 1) : s0;
  } else if ((r <= 1 || s0 == 1) && (c <= 1 || s1 >= std::max<std::int64_t>(r, 1))) {
    m.holder = t;
    m.trans = true;
    m.ld = c <= 1 ? std::max<std::int64_t>(r, 1) : s1;
  } else {
    m.holder = t.contiguous();
    m.ld = std::max<std::int64_t>(c, 1);
  }
  m.data = m.holder.template data<T>();
  return m;
}

int blas_int(std::int64_t v) {
  if (v > INT_MAX) fail(fmt::format("matrix dimension {} is too large for BLAS", v));
  return static_cast<int>(v);
}

// C (m×n, row-major, ldc = n) = alpha * A·B + beta * C, for A (m×k) and B (k×n) of type T.
// With beta == 0, C is not read; every element is written (the callers' outputs start
// uninitialized).
template <typename T>
void gemm(const Tensor& a, const Tensor& b, T alpha, T beta, T* c) {
  std::int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::int64_t i = 0; i < m * n; ++i) c[i] = beta == T(0) ? T(0) : beta * c[i];
    return;
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    BlasMatrix<T> A = blas_matrix<T>(a), B = blas_matrix<T>(b);
    for (std::int64_t dim : {m, n, k, A.ld, B.ld}) blas_int(dim);
    if constexpr (std::is_same_v<T, float>) {
      // B read-only in the model file (a linear layer's weight): oneDNN's matmul over the
      // weights reordered once (onednn_matmul.h; AVX-512), else the weights packed once
      // (packed_weight_product.h; AVX2).
      const bool dense_b = B.ld == (B.trans ? k : n);
      if (alpha == 1.0f && !A.trans && dense_b && B.holder.storage().is_view()) {
        const Bytes b_bytes(B.holder.storage().bytes().owner(),
                            reinterpret_cast<const std::uint8_t*>(B.data),
                            static_cast<std::size_t>(k * n) * sizeof(float));
        if (onednn_matmul(A.data, A.ld, b_bytes, B.trans, m, n, k, beta, c, n) ||
            packed_weight_product(A.data, A.ld, b_bytes, B.trans, m, n, k, beta, c, n)) {
          return;
        }
      }
      sgemm(A.trans, B.trans, m, n, k, alpha, A.data, A.ld, B.data, B.ld, beta, c, n);
    } else {
      dgemm(A.trans, B.trans, m, n, k, alpha, A.data, A.ld, B.data, B.ld, beta, c, n);
    }
  } else {
    const T* pa = a.template data<T>();
    const T* pb = b.template data<T>();
    std::int64_t a0 = a.strides()[0], a1 = a.strides()[1];
    std::int64_t b0 = b.strides()[0], b1 = b.strides()[1];
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        T dot = 0;
        for (std::int64_t l = 0; l < k; ++l) {
          dot = wrapping_add(dot, wrapping_mul(pa[i * a0 + l * a1], pb[l * b0 + j * b1]));
        }
        T& out = c[i * n + j];
        out = beta == T(0) ? wrapping_mul(alpha, dot)
                           : wrapping_add(wrapping_mul(beta, out), wrapping_mul(alpha, dot));
      }
    }
  }
}

// PyTorch's gemm kernels dispatch on the result dtype: bool and half have none.
template <typename F>
decltype(auto) dispatch_gemm(DType dtype, std::string_view kernel, F&& f) {
  if (dtype == DType::kBool) not_implemented(kernel, dtype);
  return dispatch_numeric(dtype, kernel, std::forward<F>(f));
}

void check_same_dtype(const Tensor& expected, const Tensor& found) {
  if (expected.dtype() != found.dtype()) {
    fail(fmt::format("expected scalar type {} but found {}",
                     tensor::scalar_type_name(expected.dtype()),
                     tensor::scalar_type_name(found.dtype())));
  }
}

void check_mm_shapes(const Tensor& a, const Tensor& b) {
  if (a.sizes()[1] != b.sizes()[0]) {
    fail(fmt::format("mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", a.sizes()[0],
                     a.sizes()[1], b.sizes()[0], b.sizes()[1]));
  }
}

Tensor view_as(const Tensor& t, Sizes sizes, Sizes strides, std::int64_t offset) {
  return Tensor::from_storage(t.storage(), t.dtype(), std::move(sizes), std::move(strides), offset);
}

// t with its last two dimensions swapped (PyTorch's .mT; .t() for a matrix).
Tensor transpose_last(const Tensor& t) {
  Sizes sizes = t.sizes(), strides = t.strides();
  std::size_t n = sizes.size();
  std::swap(sizes[n - 1], sizes[n - 2]);
  std::swap(strides[n - 1], strides[n - 2]);
  return view_as(t, sizes, strides, t.storage_offset());
}

// A contiguous tensor of `sizes` with t's elements (row-major order); a view when t is
// contiguous already.
Tensor reshaped(const Tensor& t, Sizes sizes) {
  Tensor c = t.contiguous();
  Sizes strides = tensor::contiguous_strides(sizes);
  return view_as(c, std::move(sizes), std::move(strides), c.storage_offset());
}

Tensor mm_impl(const Tensor& a, const Tensor& b) {
  if (a.dim() != 2) fail("self must be a matrix");
  if (b.dim() != 2) fail("mat2 must be a matrix");
  check_mm_shapes(a, b);
  return dispatch_gemm(a.dtype(), "addmm_impl_cpu_", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    check_same_dtype(a, b);
    Tensor out = Tensor::uninitialized({a.sizes()[0], b.sizes()[1]}, a.dtype());
    gemm<T>(a, b, T(1), T(0), out.template mutable_data<T>());
    return out;
  });
}

Tensor mv_impl(const Tensor& mat, const Tensor& vec) {
  if (mat.sizes()[1] != vec.sizes()[0]) {
    fail(fmt::format("size mismatch, got {}, {}x{},{}", mat.sizes()[0], mat.sizes()[0],
                     mat.sizes()[1], vec.sizes()[0]));
  }
  return dispatch_gemm(mat.dtype(), "addmv_impl_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    check_same_dtype(mat, vec);
    Tensor col = view_as(vec, {vec.sizes()[0], 1}, {vec.strides()[0], 1}, vec.storage_offset());
    Tensor out = Tensor::uninitialized({mat.sizes()[0]}, mat.dtype());
    gemm<T>(mat, col, T(1), T(0), out.template mutable_data<T>());
    return out;
  });
}

Tensor dot_impl(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    fail(fmt::format("dot : expected both vectors to have same dtype, but found {} and {}",
                     tensor::scalar_type_name(a.dtype()), tensor::scalar_type_name(b.dtype())));
  }
  if (a.numel() != b.numel()) {
    fail(
        fmt::format("inconsistent tensor size, expected tensor [{}] and src [{}] to have the "
                    "same number of elements, but got {} and {} elements respectively",
                    a.numel(), b.numel(), a.numel(), b.numel()));
  }
  return dispatch_gemm(a.dtype(), "dot", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    Tensor row = view_as(a, {1, a.sizes()[0]}, {1, a.strides()[0]}, a.storage_offset());
    Tensor col = view_as(b, {b.sizes()[0], 1}, {b.strides()[0], 1}, b.storage_offset());
    Tensor out = Tensor::uninitialized({}, a.dtype());
    gemm<T>(row, col, T(1), T(0), out.template mutable_data<T>());
    return out;
  });
}

// A batch of matrices inside one tensor, without copying it: item i is the rows x cols
// matrix at storage offset offsets[i], strides row_stride and col_stride. Broadcast batch
// dimensions repeat offsets.
struct MatrixBatch {
  Tensor base;
  std::vector<std::int64_t> offsets;
  std::int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;

  Tensor item(std::size_t i) const {
    return view_as(base, {rows, cols}, {row_stride, col_stride}, offsets[i]);
  }
};

// The matrices of `t` (any strides), whose leading `batch_dims` dimensions index them and
// whose last two (or last one, a column: `rows` x 1) hold each.
MatrixBatch matrix_batch(const Tensor& t, std::size_t batch_dims) {
  MatrixBatch m;
  m.base = t;
  const Sizes& sizes = t.sizes();
  const Sizes& strides = t.strides();
  const bool column = sizes.size() == batch_dims + 1;
  m.rows = sizes[batch_dims];
  m.row_stride = strides[batch_dims];
  m.cols = column ? 1 : sizes[batch_dims + 1];
  m.col_stride = column ? 1 : strides[batch_dims + 1];
  m.offsets.assign(1, t.storage_offset());
  for (std::size_t d = 0; d < batch_dims; ++d) {  // row-major over the batch dimensions
    std::vector<std::int64_t> next;
    next.reserve(m.offsets.size() * static_cast<std::size_t>(sizes[d]));
    for (std::int64_t base : m.offsets) {
      for (std::int64_t j = 0; j < sizes[d]; ++j) next.push_back(base + j * strides[d]);
    }
    m.offsets = std::move(next);
  }
  return m;
}

// C[i] = alpha * A[i]·B[i] + beta * C[i] for each pair of matrices, C contiguous
// [batch, m, n]. The products are independent: small ones (an attention's per-head q k^T) go
// to the threads a few at a time, each running inline; a batch of one is split inside the
// product instead.
template <typename T>
void batched_gemm(const MatrixBatch& a, const MatrixBatch& b, T alpha, T beta, T* c) {
  const auto bs = static_cast<std::int64_t>(a.offsets.size());
  const std::int64_t m = a.rows, k = a.cols, n = b.cols;
  constexpr std::int64_t kMultiplyAddsPerChunk = std::int64_t{1} << 18;
  const std::int64_t work = std::max<std::int64_t>(1, m * n * k);
  parallel_for(bs, std::max<std::int64_t>(1, kMultiplyAddsPerChunk / work),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t i = first; i < last; ++i) {
                   const auto item = static_cast<std::size_t>(i);
                   gemm<T>(a.item(item), b.item(item), alpha, beta, c + i * m * n);
                 }
               });
}

// The product of two batches of matrices, with bmm's checks: [batch, m, n] contiguous.
Tensor batched_product(const MatrixBatch& a, const MatrixBatch& b, DType a_dtype,
                       const Tensor& b_tensor) {
  const auto bs = static_cast<std::int64_t>(a.offsets.size());
  const auto b_bs = static_cast<std::int64_t>(b.offsets.size());
  if (b_bs != bs || b.rows != a.cols) {
    fail(
        fmt::format("Expected size for first two dimensions of batch2 tensor to be: [{}, {}] "
                    "but got: [{}, {}].",
                    bs, a.cols, b_bs, b.rows));
  }
  return dispatch_gemm(a_dtype, "bmm", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    check_same_dtype(a.base, b_tensor);
    Tensor out = Tensor::uninitialized({bs, a.rows, b.cols}, a_dtype);
    batched_gemm<T>(a, b, T(1), T(0), out.template mutable_data<T>());
    return out;
  });
}

Tensor bmm_impl(const Tensor& a, const Tensor& b) {
  if (a.dim() != 3) fail("batch1 must be a 3D tensor");
  if (b.dim() != 3) fail("batch2 must be a 3D tensor");
  return batched_product(matrix_batch(a, 1), matrix_batch(b, 1), a.dtype(), b);
}

// at::expand's check and message, then `t` viewed with `sizes` (stride 0 along the
// dimensions it is repeated over).
Tensor expanded(const Tensor& t, const Sizes& sizes) {
  if (t.dim() > static_cast<std::int64_t>(sizes.size())) {
    fail(
        fmt::format("expand(torch.{}Tensor{{{}}}, size={}): the number of sizes provided ({}) "
                    "must be greater or equal to the number of dimensions in the tensor ({})",
                    tensor::scalar_type_name(t.dtype()), tensor::format_sizes(t.sizes()),
                    tensor::format_sizes(sizes), sizes.size(), t.dim()));
  }
  Sizes strides(sizes.size(), 0);
  std::size_t shift = sizes.size() - t.sizes().size();
  for (std::size_t d = 0; d < t.sizes().size(); ++d) {
    std::int64_t have = t.sizes()[d], want = sizes[d + shift];
    if (have == want) {
      strides[d + shift] = t.strides()[d];
    } else if (have != 1) {
      fail(fmt::format(
          "The expanded size of the tensor ({}) must match the existing size ({}) "
          "at non-singleton dimension {}.  Target sizes: {}.  Tensor sizes: {}",
          want, have, d + shift, tensor::format_sizes(sizes), tensor::format_sizes(t.sizes())));
    }
  }
  return view_as(t, sizes, strides, t.storage_offset());
}

// expanded(t, sizes) as a new contiguous tensor (addmm writes its result into it).
Tensor expand_copy(const Tensor& t, const Sizes& sizes) {
  Tensor out = Tensor::uninitialized(sizes, t.dtype());
  copy_into(out, expanded(t, sizes));
  return out;
}

Tensor addmm_impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const IValue& beta,
                  const IValue& alpha) {
  if (self.dtype() != mat2.dtype()) fail("self and mat2 must have the same dtype");
  if (mat1.dtype() != mat2.dtype()) fail("mat1 and mat2 must have the same dtype");
  if (mat1.dim() != 2) fail(fmt::format("mat1 must be a matrix, got {}-D tensor", mat1.dim()));
  if (mat2.dim() != 2) fail(fmt::format("mat2 must be a matrix, got {}-D tensor", mat2.dim()));
  check_mm_shapes(mat1, mat2);
  Sizes out_sizes{mat1.sizes()[0], mat2.sizes()[1]};
  Tensor bias = expand_copy(self, out_sizes);
  return dispatch_gemm(mat1.dtype(), "addmm_impl_cpu_", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    T b = checked_value<T>(beta), a = checked_value<T>(alpha);
    Tensor out = b == T(0) ? Tensor::uninitialized(out_sizes, mat1.dtype()) : bias;
    gemm<T>(mat1, mat2, a, b, out.template mutable_data<T>());
    return out;
  });
}

// baddbmm(self, batch1, batch2, *, beta, alpha): beta * self (expanded to [b, m, n]) +
// alpha * bmm(batch1, batch2); self is not read when beta is 0 (its NaNs do not propagate).
Tensor baddbmm_impl(const Tensor& self, const Tensor& b1, const Tensor& b2, const IValue& beta,
                    const IValue& alpha) {
  // PyTorch expands self to [batch1.size(0), batch1.size(1), batch2.size(2)] first.
  Tensor bias;
  if (b1.dim() >= 2 && b2.dim() >= 3) {
    bias = expand_copy(self, {b1.sizes()[0], b1.sizes()[1], b2.sizes()[2]});
  }
  if (b1.dim() != 3) fail("batch1 must be a 3D tensor");
  if (b2.dim() != 3) fail("batch2 must be a 3D tensor");
  std::int64_t bs = b1.sizes()[0], m = b1.sizes()[1], k = b1.sizes()[2], n = b2.sizes()[2];
  if (b2.sizes()[0] != bs || b2.sizes()[1] != k) {
    fail(
        fmt::format("Expected size for first two dimensions of batch2 tensor to be: [{}, {}] "
                    "but got: [{}, {}].",
                    bs, k, b2.sizes()[0], b2.sizes()[1]));
  }
  // The result has batch1's dtype; self is converted to it (a float64 self with float32
  // batches gives float32), the batches must agree.
  if (b1.dtype() != b2.dtype()) {
    fail(fmt::format("expected scalar type {} but found {}", tensor::scalar_type_name(b1.dtype()),
                     tensor::scalar_type_name(b2.dtype())));
  }
  if (bias.dtype() != b1.dtype()) bias = to_dtype(bias, b1.dtype());
  Sizes out_sizes{bs, m, n};
  return dispatch_gemm(b1.dtype(), "baddbmm", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    T b = checked_value<T>(beta), a = checked_value<T>(alpha);
    Tensor out = b == T(0) ? Tensor::uninitialized(out_sizes, b1.dtype()) : bias;
    batched_gemm<T>(matrix_batch(b1, 1), matrix_batch(b2, 1), a, b, out.template mutable_data<T>());
    return out;
  });
}

// PyTorch 1.13's should_fold: multiply a batch of matrices by one matrix (or vector) as one
// big mm, unless the batch is a transposed layout better left to bmm.
bool should_fold(const Tensor& t1, std::int64_t dim2) {
  if (t1.dim() >= 3 && (dim2 == 1 || dim2 == 2)) {
    const auto& sz = t1.sizes();
    const auto& st = t1.strides();
    return !(t1.dim() == 3 && dim2 == 2 && st.back() != 1 && st.front() == sz[1] * sz[2]);
  }
  return false;
}

Tensor matmul_impl(const Tensor& t1, const Tensor& t2) {
  std::int64_t d1 = t1.dim(), d2 = t2.dim();
  if (d1 == 0 || d2 == 0) {
    fail(fmt::format("both arguments to matmul need to be at least 1D, but they are {}D and {}D",
                     d1, d2));
  }
  if (d1 == 1 && d2 == 1) return dot_impl(t1, t2);
  if (d1 == 2 && d2 == 1) return mv_impl(t1, t2);
  if (d1 == 1 && d2 == 2) {
    Tensor row = view_as(t1, {1, t1.sizes()[0]}, {1, t1.strides()[0]}, t1.storage_offset());
    Tensor r = mm_impl(row, t2);
    return view_as(r, {r.sizes()[1]}, {1}, 0);
  }
  if (d1 == 2 && d2 == 2) return mm_impl(t1, t2);
  if (should_fold(t1, d2) || should_fold(t2, d1)) {
    bool transpose = d2 > d1;
    Tensor a = transpose ? transpose_last(t2) : t1;
    Tensor b = !transpose ? t2 : (d1 == 2 ? transpose_last(t1) : t1);
    Sizes out_shape(a.sizes().begin(), a.sizes().end() - 1);
    std::int64_t folded = tensor::checked_numel(out_shape);
    bool b_matrix = b.dim() == 2;
    if (b_matrix) out_shape.push_back(b.sizes()[1]);
    Tensor a_folded = reshaped(a, {folded, a.sizes().back()});
    Tensor r = b_matrix ? mm_impl(a_folded, b) : mv_impl(a_folded, b);
    Tensor out = reshaped(r, out_shape);
    return transpose && b_matrix ? transpose_last(out) : out;
  }
  // Batched: broadcast the batch dimensions, then bmm.
  std::int64_t n = d1 > 1 ? t1.sizes()[static_cast<std::size_t>(d1 - 2)] : 1;
  std::int64_t m1 = t1.sizes().back();
  Sizes batch1(t1.sizes().begin(), t1.sizes().begin() + std::max<std::int64_t>(d1 - 2, 0));
  std::int64_t m2 = d2 > 1 ? t2.sizes()[static_cast<std::size_t>(d2 - 2)] : t2.sizes()[0];
  std::int64_t p = d2 > 1 ? t2.sizes().back() : 1;
  Sizes batch2(t2.sizes().begin(), t2.sizes().begin() + std::max<std::int64_t>(d2 - 2, 0));
  Sizes out_shape = tensor::broadcast_shapes(batch1, batch2);
  tensor::checked_numel(out_shape);  // refuses a batch whose size overflows
  Sizes e1 = out_shape;
  e1.insert(e1.end(), {n, m1});
  Sizes e2 = out_shape;
  if (d2 == 1) {
    e2.push_back(m2);
  } else {
    e2.insert(e2.end(), {m2, p});
  }
  // The matrices are read where they are (an attention's q, or its k transposed, are views).
  const std::size_t batch_dims = out_shape.size();
  MatrixBatch a = matrix_batch(expanded(t1, e1), batch_dims);
  MatrixBatch b = matrix_batch(expanded(t2, e2), batch_dims);
  if (d1 > 1) out_shape.push_back(n);
  if (d2 > 1) out_shape.push_back(p);
  return reshaped(batched_product(a, b, t1.dtype(), t2), out_shape);
}

// weight.t() (t() accepts at most 2-D; 1-D and 0-D are returned as they are).
Tensor t_of(const Tensor& w) {
  if (w.dim() > 2) {
    fail(fmt::format("t() expects a tensor with <= 2 dimensions, but self is {}D", w.dim()));
  }
  return w.dim() < 2 ? w : transpose_last(w);
}

// A float32 linear by a weight read-only in the model file with a float32 bias: one oneDNN
// matmul (or, on AVX2, one product by the weights packed once) adding the bias as it stores
// the output, into a new output (no bias copied into it first, no pass to add it after).
// Empty when neither path takes it.
std::optional<Tensor> linear_on_file_weight(const Tensor& input, const Tensor& weight,
                                            const IValue& bias) {
  if (bias.is_none() || input.dim() < 2 || weight.dim() != 2 || !input.is_contiguous() ||
      !weight.is_contiguous() || !weight.storage().is_view() || input.dtype() != DType::kFloat32 ||
      weight.dtype() != DType::kFloat32) {
    return std::nullopt;
  }
  const Tensor& b = bias.to_tensor();
  const std::int64_t n = weight.sizes()[0], k = weight.sizes()[1];
  if (b.dtype() != DType::kFloat32 || b.dim() != 1 || b.sizes()[0] != n || !b.is_contiguous() ||
      input.sizes().back() != k ||
      !onednn_matmul_size(input.numel() / std::max<std::int64_t>(k, 1), n, k)) {
    return std::nullopt;
  }
  Sizes out_sizes = input.sizes();
  out_sizes.back() = n;
  Tensor out = Tensor::uninitialized(out_sizes, DType::kFloat32);
  const Bytes weight_bytes(weight.storage().bytes().owner(),
                           reinterpret_cast<const std::uint8_t*>(weight.data<float>()),
                           static_cast<std::size_t>(n * k) * sizeof(float));
  const std::int64_t m = input.numel() / k;
  float* c = out.mutable_data<float>();
  if (!onednn_matmul(input.data<float>(), k, weight_bytes, true, m, n, k, 0.0f, c, n,
                     b.data<float>()) &&
      !packed_weight_product(input.data<float>(), k, weight_bytes, true, m, n, k, 0.0f, c, n,
                             b.data<float>())) {
    return std::nullopt;
  }
  return out;
}

Tensor linear_impl(const Tensor& input, const Tensor& weight, const IValue& bias) {
  if (std::optional<Tensor> out = linear_on_file_weight(input, weight, bias)) return *out;
  IValue one(std::int64_t{1});
  if (!bias.is_none()) {
    const Tensor& b = bias.to_tensor();
    if (input.dim() == 2) return addmm_impl(b, input, t_of(weight), one, one);
    if (input.dim() == 3 && input.is_contiguous()) {
      const Sizes& s = input.sizes();
      Tensor flat = reshaped(input, {s[0] * s[1], s[2]});
      Tensor r = addmm_impl(b, flat, t_of(weight), one, one);
      return reshaped(r, {s[0], s[1], r.sizes()[1]});
    }
  }
  Tensor out = matmul_impl(input, t_of(weight));
  if (!bias.is_none()) return run_op("aten::add_.Tensor", {out, bias}).to_tensor();
  return out;
}

// bilinear(input1, input2, weight [O, I, J], bias [O]): y[..., o] = x1[..., :] W[o] x2[..., :]
// + b[o], with PyTorch's checks. Computed over the flattened batch as one GEMM,
// x1 [N, I] @ W viewed [I, O * J], then the product with x2 summed over J.
Tensor bilinear_impl(const Tensor& x1, const Tensor& x2, const Tensor& weight, const IValue& bias) {
  if (x1.dim() != x2.dim()) {
    fail(fmt::format("bilinear(): input dimensions do not match: got {} and {}", x1.dim(),
                     x2.dim()));
  }
  if (x1.dim() == 0)
    throw OpError("IndexError", "Dimension specified as -1 but tensor has no dimensions");
  for (std::int64_t i = 0; i + 1 < x1.dim(); ++i) {
    if (x1.sizes()[i] != x2.sizes()[i]) {
      fail(fmt::format("bilinear(): input batch dimensions do not match at dim {}: got {} and {}",
                       i, x1.sizes()[i], x2.sizes()[i]));
    }
  }
  const std::int64_t in1 = x1.sizes().back(), in2 = x2.sizes().back();
  const std::int64_t w_in1 = weight.sizes()[wrap_dim(1, weight.dim())];
  if (in1 != w_in1) {
    fail(fmt::format("bilinear(): input1 size does not match weight size: got {} but expected {}",
                     in1, w_in1));
  }
  const std::int64_t w_in2 = weight.sizes()[wrap_dim(2, weight.dim())];
  if (in2 != w_in2) {
    fail(fmt::format("bilinear(): input2 size does not match weight size: got {} but expected {}",
                     in2, w_in2));
  }
  const std::int64_t out_features = weight.sizes()[0];
  if (!bias.is_none()) {
    const Tensor& b = bias.to_tensor();
    const std::int64_t b0 = b.sizes().empty() ? 1 : b.sizes()[wrap_dim(0, b.dim())];
    if (b0 != out_features) {
      fail(fmt::format("bilinear(): bias size does not match weight size: got {} but expected {}",
                       b0, out_features));
    }
  }
  check_same_dtype(x1, weight);
  check_same_dtype(x1, x2);
  for (std::int64_t features : {in1, in2}) {
    if (features == 0) {
      fail(
          fmt::format("cannot reshape tensor of 0 elements into shape [-1, 0] because the "
                      "unspecified dimension "
                      "size -1 can be any value and is ambiguous"));
    }
  }
  const std::int64_t n = x1.numel() / in1;
  const Sizes& ws = weight.sizes();
  const Sizes& wst = weight.strides();
  const Tensor w_iok = reshaped(
      view_as(weight, {ws[1], ws[0], ws[2]}, {wst[1], wst[0], wst[2]}, weight.storage_offset()),
      {in1, out_features * in2});
  const Tensor y = mm_impl(reshaped(x1, {n, in1}), w_iok);
  IValue product =
      run_op("aten::mul.Tensor", {reshaped(y, {n, out_features, in2}), reshaped(x2, {n, 1, in2})});
  IValue summed =
      run_op("aten::sum.dim_IntList", {product, IValue::list({IValue(std::int64_t{-1})}), false});
  Sizes out_sizes(x1.sizes().begin(), x1.sizes().end() - 1);
  out_sizes.push_back(out_features);
  Tensor out = reshaped(summed.to_tensor(), std::move(out_sizes));
  if (!bias.is_none()) return run_op("aten::add.Tensor", {out, bias}).to_tensor();
  return out;
}

// --- kernels ---------------------------------------------------------------------------

void mm(Stack& s) {
  IValue b = pop(s), a = pop(s);
  s.emplace_back(mm_impl(a.to_tensor(), b.to_tensor()));
}
void matmul(Stack& s) {
  IValue b = pop(s), a = pop(s);
  s.emplace_back(matmul_impl(a.to_tensor(), b.to_tensor()));
}
void bmm(Stack& s) {
  IValue b = pop(s), a = pop(s);
  s.emplace_back(bmm_impl(a.to_tensor(), b.to_tensor()));
}
void addmm(Stack& s) {
  IValue alpha = pop(s), beta = pop(s), mat2 = pop(s), mat1 = pop(s), self = pop(s);
  s.emplace_back(addmm_impl(self.to_tensor(), mat1.to_tensor(), mat2.to_tensor(), beta, alpha));
}
void baddbmm(Stack& s) {
  IValue alpha = pop(s), beta = pop(s), b2 = pop(s), b1 = pop(s), self = pop(s);
  s.emplace_back(baddbmm_impl(self.to_tensor(), b1.to_tensor(), b2.to_tensor(), beta, alpha));
}
void linear(Stack& s) {
  IValue bias = pop(s), weight = pop(s), input = pop(s);
  s.emplace_back(linear_impl(input.to_tensor(), weight.to_tensor(), bias));
}
// bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)
void bilinear(Stack& s) {
  IValue bias = pop(s), weight = pop(s), input2 = pop(s), input1 = pop(s);
  s.emplace_back(bilinear_impl(input1.to_tensor(), input2.to_tensor(), weight.to_tensor(), bias));
}

// dot(self, tensor): two 1-D tensors of one size and dtype (dot_impl checks those two).
void dot(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  if (a.dim() != 1 || b.dim() != 1) {
    fail(fmt::format("1D tensors expected, but got {}D and {}D tensors", a.dim(), b.dim()));
  }
  s.emplace_back(dot_impl(a, b));
}

// mv(self, vec): a matrix times a vector.
void mv(Stack& s) {
  IValue vec = pop(s), self = pop(s);
  const Tensor& m = self.to_tensor();
  const Tensor& v = vec.to_tensor();
  if (m.dim() != 2 || v.dim() != 1) {
    fail(fmt::format("vector + matrix @ vector expected, got 1, {}, {}", m.dim(), v.dim()));
  }
  if (m.sizes()[1] != v.sizes()[0]) {
    fail(fmt::format("size mismatch, got {}, {}x{},{}", m.sizes()[0], m.sizes()[0], m.sizes()[1],
                     v.sizes()[0]));
  }
  s.push_back(run_op("aten::matmul", {self, vec}));
}

}  // namespace

void register_linear_algebra_ops(OperatorRegistry& r) {
  IValue one(std::int64_t{1});
  r.add({"aten::mm", 2, {}, mm});
  r.add({"aten::matmul", 2, {}, matmul});
  r.add({"aten::dot", 2, {}, dot});
  r.add({"aten::mv", 2, {}, mv});
  r.add({"aten::bmm", 2, {}, bmm});
  r.add({"aten::addmm", 5, {one, one}, addmm});
  r.add({"aten::baddbmm", 5, {one, one}, baddbmm});
  r.add({"aten::linear", 3, {IValue()}, linear});
  r.add({"aten::bilinear", 4, {IValue()}, bilinear});
}

}  // namespace symbolite::ops
