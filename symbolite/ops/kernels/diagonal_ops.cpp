// Diagonals: diagonal (a view of the elements (i, i + offset) of two dimensions, moved last),
// diag (a vector's square matrix, or a matrix's diagonal as a copy), trace, and eye.
#include <algorithm>
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
  const std::int64_t n = t.numel() + (k >= 0 ? k : -k);
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

}  // namespace

void register_diagonal_ops(OperatorRegistry& r) {
  const IValue none, zero(std::int64_t{0}), one(std::int64_t{1});
  r.add({"aten::diagonal", 4, {zero, zero, one}, diagonal});
  r.add({"aten::diag", 2, {zero}, diag});
  r.add({"aten::trace", 1, {}, trace});
  r.add({"aten::eye", 5, {none, none, none, none}, eye});
  r.add({"aten::eye.m", 6, {none, none, none, none}, eye_m});
}

}  // namespace symbolite::ops
