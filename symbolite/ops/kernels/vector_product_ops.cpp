// Products users call by name beyond mm / matmul: inner, vdot (real tensors), linalg.vecdot,
// matrix powers (matrix_power, linalg.matrix_power; negative powers through linalg.inv) and
// triangular solves (linalg.solve_triangular, triangular_solve). Each checks what PyTorch 1.13
// checks, with its message, and composes the products PyTorch's own composite runs. The
// triangular solves substitute row by row (BLAS trsm's algorithm), so results agree with
// PyTorch's to rounding, not bit for bit.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/batched_matrices.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// inner(self, other): the sum over the last dimensions of both; a 0-dim side multiplies.
void inner(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  if (a.dim() == 0 || b.dim() == 0) {
    s.push_back(run_op("aten::mul.Tensor", {self, other}));
    return;
  }
  if (a.sizes().back() != b.sizes().back()) {
    fail(fmt::format(
        "inner() the last dimension must match on both input tensors but got shapes {} and {}",
        tensor::format_sizes(a.sizes()), tensor::format_sizes(b.sizes())));
  }
  s.push_back(run_op("aten::tensordot", {self, other, int_list_value({-1}), int_list_value({-1})}));
}

// vdot(self, other): dot for real tensors.
void vdot(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.push_back(run_op("aten::dot", {self, other}));
}

// linalg.vecdot(x, y, dim): sum(x * y) over dim, floating tensors of one dtype.
void linalg_vecdot(Stack& s) {
  IValue dim = pop(s), y = pop(s), x = pop(s);
  const DType tx = x.to_tensor().dtype(), ty = y.to_tensor().dtype();
  if (!is_floating(tx)) {
    fail(fmt::format("linalg.vecdot: Expected a floating point or complex tensor as input. Got {}",
                     tensor::scalar_type_name(tx)));
  }
  if (tx != ty) {
    fail(fmt::format(
        "linalg.vecdot: Expected x and y to have the same dtype, but found x of type {} and y "
        "of type {} instead",
        tensor::scalar_type_name(tx), tensor::scalar_type_name(ty)));
  }
  s.push_back(
      run_op("aten::sum.dim_IntList", {run_op("aten::mul.Tensor", {x, y}),
                                       int_list_value({dim.to_int()}), IValue(false), IValue()}));
}

// matrix_power(self, n): identity for 0, self for 1, the inverse's power for negative n; small
// powers directly, larger ones by repeated squaring from the lowest bit.
void matrix_power(Stack& s) {
  IValue n_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  check_square(t, "linalg.matrix_power", "A");
  std::int64_t n = n_v.to_int();
  if (n == 0) {
    IValue eye =
        run_op("aten::eye", {IValue(t.sizes().back()), dtype_value(t.dtype()), {}, {}, {}});
    IValue full = run_op("aten::expand", {eye, int_list_value(t.sizes()), IValue(false)});
    s.push_back(run_op("aten::clone", {full, IValue()}));
    return;
  }
  if (n == 1) {
    s.push_back(run_op("aten::clone", {self, IValue()}));
    return;
  }
  if (n == -1) {
    s.push_back(run_op("aten::linalg_inv", {self}));
    return;
  }
  const IValue a = n < 0 ? run_op("aten::linalg_inv", {self}) : self;
  n = std::llabs(n);
  if (n == 2) {
    s.push_back(run_op("aten::matmul", {a, a}));
    return;
  }
  if (n == 3) {
    s.push_back(run_op("aten::matmul", {run_op("aten::matmul", {a, a}), a}));
    return;
  }
  IValue z, result;
  while (n > 0) {
    const std::int64_t bit = n % 2;
    n /= 2;
    z = z.is_none() ? a : run_op("aten::matmul", {z, z});
    if (bit == 1) result = result.is_none() ? z : run_op("aten::matmul", {result, z});
  }
  s.push_back(result);
}

// The batch dimensions of a and b broadcast, each then expanded to them and made contiguous
// in `dtype`.
std::pair<Tensor, Tensor> broadcast_batches(const IValue& a, const IValue& b, DType dtype) {
  const Ints& sa = a.to_tensor().sizes();
  const Ints& sb = b.to_tensor().sizes();
  const std::size_t na = sa.size() - 2, nb = sb.size() - 2, n = std::max(na, nb);
  Ints batch(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t x = i + na >= n ? sa[i + na - n] : 1;
    const std::int64_t y = i + nb >= n ? sb[i + nb - n] : 1;
    if (x != y && x != 1 && y != 1) {
      fail(fmt::format(
          "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton "
          "dimension {}",
          x, y, i));
    }
    batch[i] = x == 1 ? y : x;
  }
  auto expand = [&](const IValue& t, const Ints& own) {
    Ints shape = batch;
    shape.insert(shape.end(), own.end() - 2, own.end());
    return to_dtype(
        run_op("aten::expand", {t, int_list_value(shape), IValue(false)}).to_tensor().contiguous(),
        dtype);
  };
  return {expand(a, sa), expand(b, sb)};
}

// Solves op(A) X = B for each batch in place of B (rows x cols); op(A) is A or its transpose,
// triangular on the `upper` side of op(A).
void solve_triangular_into(const Tensor& a, Tensor& b, bool upper, bool transpose, bool unit) {
  const Ints& sb = b.sizes();
  const std::int64_t rows = sb[sb.size() - 2], cols = sb.back();
  const std::int64_t batches = rows * cols == 0 ? 0 : b.numel() / (rows * cols);
  dispatch_floating(b.dtype(), "triangular_solve_cpu", [&](auto tag) {
    using T = decltype(tag);
    for (std::int64_t m = 0; m < batches; ++m) {
      const T* am = a.template data<T>() + m * rows * rows;
      T* x = b.template mutable_data<T>() + m * rows * cols;
      auto at = [&](std::int64_t i, std::int64_t k) {
        return transpose ? am[k * rows + i] : am[i * rows + k];
      };
      auto solve_row = [&](std::int64_t i, std::int64_t j, std::int64_t from, std::int64_t to) {
        T v = x[i * cols + j];
        for (std::int64_t k = from; k < to; ++k) v -= at(i, k) * x[k * cols + j];
        x[i * cols + j] = unit ? v : v / at(i, i);
      };
      for (std::int64_t j = 0; j < cols; ++j) {
        if (upper) {
          for (std::int64_t i = rows; i-- > 0;) solve_row(i, j, i + 1, rows);
        } else {
          for (std::int64_t i = 0; i < rows; ++i) solve_row(i, j, 0, i);
        }
      }
    }
  });
}

// linalg.solve_triangular(A, B, *, upper, left, unitriangular): X with AX = B (XA = B when
// not left, solved as A^T X^T = B^T).
void linalg_solve_triangular(Stack& s) {
  IValue unit = pop(s), left_v = pop(s), upper = pop(s), b = pop(s), a = pop(s);
  const char* f = "linalg.solve_triangular";
  const Tensor& ta = a.to_tensor();
  const Tensor& tb = b.to_tensor();
  check_square(ta, f, "A");
  check_is_matrix(tb, f, "B");
  const bool left = left_v.to_bool();
  const std::int64_t n = ta.sizes().back();
  const std::int64_t b_rows = tb.sizes()[tb.sizes().size() - 2], b_cols = tb.sizes().back();
  if ((left ? b_rows : b_cols) != n) {
    fail(fmt::format("{}: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})", f,
                     left ? "AX = B" : "XA = B", n, n, b_rows, b_cols));
  }
  // The solution is computed in (and has) A's dtype, B converted to it.
  const DType dtype = ta.dtype();
  if (!is_floating(dtype)) not_implemented("triangular_solve_cpu", dtype);
  IValue rhs = left ? b : run_op("aten::transpose.int", {b, IValue(-2), IValue(-1)});
  auto [am, x] = broadcast_batches(a, rhs, dtype);
  x = x.copy();
  solve_triangular_into(am, x, left ? upper.to_bool() : !upper.to_bool(), !left, unit.to_bool());
  IValue out(std::move(x));
  if (!left) {
    out = run_op("aten::contiguous",
                 {run_op("aten::transpose.int", {out, IValue(-2), IValue(-1)}), IValue()});
  }
  s.push_back(out);
}

// triangular_solve(b, A, upper, transpose, unitriangular): (X, A's copy) with op(A) X = b.
void triangular_solve(Stack& s) {
  IValue unit = pop(s), transpose = pop(s), upper = pop(s), a = pop(s), b = pop(s);
  const Tensor& ta = a.to_tensor();
  const Tensor& tb = b.to_tensor();
  for (const auto& [t, name] : {std::pair{&tb, "b"}, std::pair{&ta, "A"}}) {
    if (t->dim() < 2) {
      fail(fmt::format(
          "torch.triangular_solve: Expected {} to have at least 2 dimensions, but it has {} "
          "dimensions instead",
          name, t->dim()));
    }
  }
  if (ta.dtype() != tb.dtype()) {
    fail(fmt::format(
        "Expected b and A to have the same dtype, but found b of type {} and A of type {} "
        "instead.",
        tensor::scalar_type_name(tb.dtype()), tensor::scalar_type_name(ta.dtype())));
  }
  const std::int64_t n = ta.sizes().back(), rows = ta.sizes()[ta.sizes().size() - 2];
  if (rows != n) {
    fail(fmt::format("A must be batches of square matrices, but they are {} by {} matrices", rows,
                     n));
  }
  const std::int64_t b_rows = tb.sizes()[tb.sizes().size() - 2];
  if (b_rows != n) {
    fail(fmt::format(
        "Incompatible matrix sizes for triangular_solve: each A matrix is {} by {} but each b "
        "matrix is {} by {}",
        n, n, b_rows, tb.sizes().back()));
  }
  if (!is_floating(tb.dtype())) not_implemented("triangular_solve_cpu", tb.dtype());
  auto [am, x] = broadcast_batches(a, b, tb.dtype());
  x = x.copy();
  const bool trans = transpose.to_bool();
  solve_triangular_into(am, x, trans ? !upper.to_bool() : upper.to_bool(), trans, unit.to_bool());
  s.emplace_back(std::move(x));
  s.emplace_back(am.copy());
}

}  // namespace

void register_vector_product_ops(OperatorRegistry& r) {
  const IValue no(false), yes(true);
  r.add({"aten::inner", 2, {}, inner});
  r.add({"aten::vdot", 2, {}, vdot});
  r.add({"aten::linalg_vecdot", 3, {IValue(std::int64_t{-1})}, linalg_vecdot});
  r.add({"aten::matrix_power", 2, {}, matrix_power});
  r.add({"aten::linalg_matrix_power", 2, {}, matrix_power});
  r.add({"aten::linalg_solve_triangular", 5, {yes, no}, linalg_solve_triangular});
  r.add({"aten::triangular_solve", 5, {yes, no, no}, triangular_solve});
}

}  // namespace symbolite::ops
