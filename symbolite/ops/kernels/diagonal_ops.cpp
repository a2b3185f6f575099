// Diagonals: diagonal (a view of the elements (i, i + offset) of two dimensions, moved last),
// diag (a vector's square matrix, or a matrix's diagonal as a copy), trace, eye, diag_embed
// (the last dimension written along a diagonal of two new ones) and block_diag (matrices
// along the diagonal of a larger one).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

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

// The view PyTorch's diagonal makes: dims dim1 and dim2 dropped, the diagonal's length last,
// its stride the sum of theirs.
Tensor diagonal_view(const Tensor& t, std::int64_t offset, std::int64_t dim1_arg,
                     std::int64_t dim2_arg) {
  const std::int64_t dim1 = wrap_dim(dim1_arg, t.dim());
  const std::int64_t dim2 = wrap_dim(dim2_arg, t.dim());
  if (dim1 == dim2) {
    fail(fmt::format("diagonal dimensions cannot be identical {}, {}", dim1_arg, dim2_arg));
  }
  const auto d1 = static_cast<std::size_t>(dim1), d2 = static_cast<std::size_t>(dim2);
  std::int64_t length = 0;
  std::int64_t start = t.storage_offset();
  if (offset >= 0) {
    length = std::max<std::int64_t>(std::min(t.sizes()[d1], t.sizes()[d2] - offset), 0);
    if (length > 0) start += offset * t.strides()[d2];
  } else {
    length = std::max<std::int64_t>(std::min(t.sizes()[d1] + offset, t.sizes()[d2]), 0);
    if (length > 0) start -= offset * t.strides()[d1];
  }
  Ints sizes, strides;
  for (std::size_t d = 0; d < t.sizes().size(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  sizes.push_back(length);
  strides.push_back(t.strides()[d1] + t.strides()[d2]);
  return Tensor::from_storage(t.storage(), t.dtype(), sizes, strides, start);
}

// diagonal(self, offset=0, dim1=0, dim2=1)
void diagonal(Stack& s) {
  IValue dim2 = pop(s), dim1 = pop(s), offset = pop(s), self = pop(s);
  s.emplace_back(diagonal_view(self.to_tensor(), offset.to_int(), dim1.to_int(), dim2.to_int()));
}

// diag(self, diagonal=0): a 1-D self on the diagonal of a square zero matrix; a 2-D self's
// diagonal, copied.
void diag(Stack& s) {
  IValue k_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const std::int64_t k = k_v.to_int();
  if (t.dim() == 2) {
    s.emplace_back(diagonal_view(t, k, 0, 1).contiguous());
    return;
  }
  if (t.dim() != 1) fail("matrix or a vector expected");
  // numel + |k| rows: an offset no matrix holds fails before the sum overflows.
  std::int64_t n = 0;
  if (k == std::numeric_limits<std::int64_t>::min() ||
      __builtin_add_overflow(t.numel(), k >= 0 ? k : -k, &n)) {
    fail(fmt::format("diagflat: a vector of {} with offset {} makes a matrix no tensor holds",
                     t.numel(), k));
  }
  Tensor out = Tensor::empty({n, n}, t.dtype());
  copy_into(diagonal_view(out, k, 0, 1), t);
  s.emplace_back(std::move(out));
}

// trace(self): the sum of a matrix's diagonal (integers as int64).
void trace(Stack& s) {
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() != 2) {
    fail(fmt::format("trace: expected a matrix, but got tensor with dim {}", t.dim()));
  }
  s.push_back(run_op("aten::sum", {IValue(diagonal_view(t, 0, 0, 1))}));
}

// eye(n, m, *, dtype=None, ...): ones on the main diagonal, float32 unless told otherwise.
Tensor eye_impl(std::int64_t n, std::int64_t m, const IValue& dtype) {
  if (n < 0) fail(fmt::format("n must be greater or equal to 0, got {}", n));
  if (m < 0) fail(fmt::format("m must be greater or equal to 0, got {}", m));
  Tensor out = Tensor::empty({n, m}, dtype_arg(dtype).value_or(DType::kFloat32));
  dispatch_all(out.dtype(), "eye", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.template mutable_data<T>();
    for (std::int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = T(1);
  });
  return out;
}

void eye(Stack& s) {
  IValue* a = last(s, 5);
  const std::int64_t n = a[0].to_int();
  IValue dtype = a[1];
  drop(s, 5);
  s.emplace_back(eye_impl(n, n, dtype));
}

void eye_m(Stack& s) {
  IValue* a = last(s, 6);
  const std::int64_t n = a[0].to_int(), m = a[1].to_int();
  IValue dtype = a[2];
  drop(s, 6);
  s.emplace_back(eye_impl(n, m, dtype));
}

// diag_embed(self, offset=0, dim1=-2, dim2=-1): zeros with self's last dimension written along
// the diagonal of dims dim1 and dim2 of the result (one dimension more than self).
void diag_embed(Stack& s) {
  const std::int64_t dim2_arg = pop(s).to_int(), dim1_arg = pop(s).to_int();
  const std::int64_t offset = pop(s).to_int();
  const Tensor self = pop(s).to_tensor();
  const std::int64_t ndim = self.dim() + 1;
  const std::int64_t dim1 = wrap_dim(dim1_arg, ndim), dim2 = wrap_dim(dim2_arg, ndim);
  if (dim1 == dim2) {
    fail(fmt::format("diagonal dimensions cannot be identical {}, {}", dim1_arg, dim2_arg));
  }
  if (self.dim() == 0) fail("Dimension specified as -1 but tensor has no dimensions");
  const std::int64_t n = std::abs(offset) + self.sizes().back();
  Ints sizes = self.sizes();
  sizes.pop_back();
  sizes.insert(sizes.begin() + std::min(dim1, dim2), n);
  sizes.insert(sizes.begin() + std::max(dim1, dim2), n);
  Tensor out = Tensor::empty(sizes, self.dtype());
  copy_into(diagonal_view(out, offset, dim1, dim2), self);
  s.emplace_back(std::move(out));
}

// block_diag(tensors): each tensor (a 0-D one as 1 x 1, a 1-D one as a row) placed on the
// diagonal of a zero matrix, in their promoted dtype; no tensors give a 1 x 0 matrix.
void block_diag(Stack& s) {
  const std::vector<Tensor> tensors = tensor_list_arg(pop(s));
  ResultType type;
  std::int64_t rows = 0, cols = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() > 2) {
      fail(
          fmt::format("torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                      "{} has {} dimensions",
                      i, t.dim()));
    }
    const std::int64_t r = t.dim() == 2 ? t.sizes()[0] : 1;
    const std::int64_t c = t.dim() == 0 ? 1 : t.sizes().back();
    shapes.emplace_back(r, c);
    rows += r;
    cols += c;
    type.tensor(t);
  }
  if (tensors.empty()) {
    s.emplace_back(Tensor::empty({1, 0}, DType::kFloat32));
    return;
  }
  const DType dtype = type.result();
  Tensor out = Tensor::empty({rows, cols}, dtype);
  std::int64_t r0 = 0, c0 = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto [r, c] = shapes[i];
    const Tensor block = Tensor::from_storage(out.storage(), dtype, {r, c}, {cols, 1},
                                              out.storage_offset() + r0 * cols + c0);
    const Tensor x = to_dtype(tensors[i], dtype).contiguous();
    copy_into(block, Tensor::from_storage(x.storage(), dtype, {r, c}, {c, 1}, x.storage_offset()));
    r0 += r;
    c0 += c;
  }
  s.emplace_back(std::move(out));
}

}  // namespace

void register_diagonal_ops(OperatorRegistry& r) {
  const IValue none, zero(std::int64_t{0}), one(std::int64_t{1});
  r.add({"aten::diagonal", 4, {zero, zero, one}, diagonal});
  r.add({"aten::diag", 2, {zero}, diag});
  r.add({"aten::trace", 1, {}, trace});
  r.add({"aten::eye", 5, {none, none, none, none}, eye});
  r.add({"aten::eye.m", 6, {none, none, none, none}, eye_m});
  r.add({"aten::diag_embed",
         4,
         {zero, IValue(std::int64_t{-2}), IValue(std::int64_t{-1})},
         diag_embed});
  r.add({"aten::block_diag", 1, {}, block_diag});
}

}  // namespace symbolite::ops
