// Splits, fills and index updates that users call by name: hsplit / vsplit / dsplit,
// diagflat, sum_to_size, fill_diagonal_, put / put_, index_reduce / index_reduce_ and the
// Vandermonde matrices (vander, linalg.vander). Each checks what PyTorch 1.13 checks, with its
// message, then composes PyTorch's own operators (or, for the index updates, loops over the
// elements in PyTorch's order).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/index_reduction.h"
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

// hsplit / vsplit / dsplit: tensor_split along dimension 1 (0 for a vector), 0 or 2; the
// tensor needs that dimension, and a section count must divide it.
template <int kDim, bool kSections>
void direction_split(Stack& s) {
  constexpr const char* kNames[] = {"vsplit", "hsplit", "dsplit"};
  IValue how = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const char* name = kNames[kDim];
  constexpr std::int64_t kNeed[] = {2, 1, 3};
  const std::int64_t need = kNeed[kDim];
  if (t.dim() < need) {
    fail(fmt::format(
        "torch.{} requires a tensor with at least {} dimension, but got a tensor with {} "
        "dimensions!",
        name, need, t.dim()));
  }
  const std::int64_t dim = kDim == 1 && t.dim() == 1 ? 0 : kDim;
  if constexpr (kSections) {
    const std::int64_t sections = how.to_int();
    const std::int64_t size = t.sizes()[static_cast<std::size_t>(dim)];
    if (sections == 0 || size % sections != 0) {
      fail(fmt::format(
          "torch.{} attempted to split along dimension {}, but the size of the dimension {} is "
          "not divisible by the split_size {}!",
          name, dim, size, sections));
    }
    s.push_back(run_op("aten::tensor_split.sections", {self, how, IValue(dim)}));
  } else {
    s.push_back(run_op("aten::tensor_split.indices", {self, how, IValue(dim)}));
  }
}

// diagflat(self, offset): the flattened tensor on a diagonal of a square matrix.
void diagflat(Stack& s) {
  IValue offset = pop(s), self = pop(s);
  IValue flat = run_op("aten::reshape", {self, int_list_value({-1})});
  s.push_back(run_op("aten::diag", {flat, offset}));
}

// sum_to_size(self, size): self summed over its leading dimensions and those `size` has as 1,
// back to `size` (PyTorch's sum_to).
void sum_to_size(Stack& s) {
  IValue size_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const Ints shape = int_list_arg(size_v);
  const Ints& sizes = t.sizes();
  bool expandable = shape.size() <= sizes.size();
  for (std::size_t i = 0; expandable && i < shape.size(); ++i) {
    const std::int64_t from = shape[shape.size() - 1 - i], to = sizes[sizes.size() - 1 - i];
    expandable = from == to || from == 1;
  }
  if (!expandable) {
    fail(fmt::format("size {{{}}} is not expandable to size {{{}}}.", tensor::format_sizes(shape),
                     tensor::format_sizes(sizes)));
  }
  if (shape.empty()) {
    s.push_back(run_op("aten::sum", {self, IValue()}));
    return;
  }
  const std::size_t leading = sizes.size() - shape.size();
  Ints dims;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i < leading || (shape[i - leading] == 1 && sizes[i] != 1)) {
      dims.push_back(static_cast<std::int64_t>(i));
    }
  }
  IValue out = self;
  if (!dims.empty()) {
    out = run_op("aten::sum.dim_IntList", {out, int_list_value(dims), IValue(true), IValue()});
  }
  if (leading > 0) out = run_op("aten::view", {out, int_list_value(shape)});
  s.push_back(out);
}

// The storage positions of as_strided(self, [count], [stride], offset), with as_strided's
// bounds check (PyTorch's setStorage message).
void strided_positions(const Tensor& t, std::int64_t count, std::int64_t stride,
                       std::int64_t offset, std::vector<std::int64_t>& out) {
  if (count <= 0) return;
  const auto item = static_cast<std::int64_t>(t.element_size());
  const std::int64_t needed = (offset + (count - 1) * stride + 1) * item;
  const auto available = static_cast<std::int64_t>(t.storage().nbytes());
  if (needed > available) {
    fail(fmt::format(
        "setStorage: sizes [{}], strides [{}], storage offset {}, and itemsize {} requiring a "
        "storage size of {} are out of bounds for storage of size {}",
        count, stride, offset, item, needed, available));
  }
  for (std::int64_t k = 0; k < count; ++k) out.push_back(offset + k * stride);
}

// fill_diagonal_(self, value, wrap): the main diagonal (all indices equal) set to value; a
// tall matrix with wrap continues the diagonal every width + 1 rows, as NumPy's. As PyTorch,
// the diagonals are strided views of self's storage (the sum of self's strides apart), so a
// non-contiguous self's wrapped diagonal lands where its storage puts it, or fails.
void fill_diagonal_(Stack& s) {
  IValue wrap = pop(s), value = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() < 2) fail("dimensions must larger than 1");
  const std::int64_t height = t.sizes()[0], width = t.sizes()[1];
  if (t.dim() > 2) {
    for (std::int64_t d : t.sizes()) {
      if (d != height) fail("all dimensions of input must be of equal length");
    }
  }
  std::int64_t step = 0;
  for (std::int64_t st : t.strides()) step += st;
  const std::int64_t size = std::min(height, width);
  Ints positions;
  strided_positions(t, size, step, t.storage_offset(), positions);
  if (wrap.to_bool() && t.dim() == 2 && height > width + 1) {
    const std::int64_t wrap_size = (t.numel() + width) / (width + 1) - size;
    strided_positions(t, wrap_size, step, t.storage_offset() + t.strides()[0] * (width + 1),
                      positions);
  }
  // Storage positions back to self's row-major element indices.
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> element_at;
  Ints index(static_cast<std::size_t>(t.dim()), 0);
  for (std::int64_t flat = 0; flat < t.numel(); ++flat) {
    std::int64_t pos = t.storage_offset();
    for (std::size_t d = 0; d < index.size(); ++d) pos += index[d] * t.strides()[d];
    element_at[pos].push_back(flat);
    for (auto d = index.size(); d-- > 0;) {
      if (++index[d] < t.sizes()[d]) break;
      index[d] = 0;
    }
  }
  Tensor out = t.contiguous().copy();
  dispatch_all(t.dtype(), "fill_diagonal_", [&](auto tag) {
    using T = decltype(tag);
    T* o = out.template mutable_data<T>();
    const T v = checked_value<T>(value);
    for (std::int64_t pos : positions) {
      const auto found = element_at.find(pos);
      if (found == element_at.end()) continue;
      for (std::int64_t k : found->second) o[k] = v;
    }
  });
  push_in_place(s, self, out);
}

// put(self, index, source, accumulate): self's flattened elements at index set to (or, with
// accumulate, increased by) source's, in order.
Tensor put_impl(const Tensor& self, const Tensor& index_t, const Tensor& source_t,
                bool accumulate) {
  if (index_t.dtype() != DType::kInt64) {
    fail(fmt::format("put_(): Expected a long tensor for index, but got {}",
                     tensor::scalar_type_name(index_t.dtype())));
  }
  if (self.dtype() != source_t.dtype()) {
    fail(fmt::format(
        "put_(): self and source expected to have the same dtype, but got self.dtype = {} and "
        "source.dtype = {}",
        tensor::scalar_type_name(self.dtype()), tensor::scalar_type_name(source_t.dtype())));
  }
  if (source_t.numel() != index_t.numel()) {
    fail_index(fmt::format(
        "put_(): Expected source and index to have the same number of elements, but got "
        "source.numel() = {}, index.numel() = {}",
        source_t.numel(), index_t.numel()));
  }
  if (index_t.numel() != 0 && self.numel() == 0) {
    fail_index("put_(): Tried to put elements into an empty tensor");
  }
  const Tensor index = index_t.contiguous(), source = source_t.contiguous();
  Tensor out = self.contiguous().copy();
  const std::int64_t numel = self.numel();
  const auto* idx = index.data<std::int64_t>();
  dispatch_all(self.dtype(), "put_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* o = out.template mutable_data<T>();
    const T* src = source.template data<T>();
    for (std::int64_t i = 0; i < index.numel(); ++i) {
      std::int64_t k = idx[i];
      if (k < -numel || k >= numel) {
        fail_index(fmt::format("out of range: tried to access index {} on a tensor of {} elements.",
                               k, numel));
      }
      if (k < 0) k += numel;
      if constexpr (std::is_same_v<T, bool>) {
        o[k] = accumulate ? (o[k] || src[i]) : src[i];
      } else {
        o[k] = accumulate ? static_cast<T>(o[k] + src[i]) : src[i];
      }
    }
  });
  return out;
}

template <bool kInPlace>
void put(Stack& s) {
  IValue accumulate = pop(s), source = pop(s), index = pop(s), self = pop(s);
  Tensor out =
      put_impl(self.to_tensor(), index.to_tensor(), source.to_tensor(), accumulate.to_bool());
  if constexpr (kInPlace) {
    push_in_place(s, self, out);
  } else {
    s.emplace_back(std::move(out));
  }
}

// index_reduce(self, dim, index, source, reduce, include_self): for each i, the slice
// index[i] of self along dim combined with slice i of source by prod, mean (sum, then divided
// by the count, floor division for integers), amax or amin (NaN wins); without include_self
// the indexed slices start from the reduction's identity.
Tensor index_reduce_impl(const Tensor& self, std::int64_t dim_in, const Tensor& index_t,
                         const Tensor& source_t, const std::string& reduce, bool include_self) {
  const std::optional<IndexReduction> how = index_reduction_named(reduce);
  if (!how || how == IndexReduction::kSum) {
    fail(fmt::format(
        "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {}.",
        reduce));
  }
  const std::int64_t dim = wrap_dim(dim_in, self.dim());
  if (index_t.dim() > 1) {
    fail_index(fmt::format(
        "index_reduce_(): Index is supposed to be a vector, but got dim: {} with type: {} and "
        "size: {}",
        index_t.dim(), tensor::scalar_type_name(index_t.dtype()),
        tensor::format_sizes(index_t.sizes())));
  }
  if (index_t.dtype() != DType::kInt64 && index_t.dtype() != DType::kInt32) {
    fail(fmt::format("index_reduce_(): Expected dtype int32/int64 for index but got: {}",
                     tensor::scalar_type_name(index_t.dtype())));
  }
  if (self.dtype() != source_t.dtype()) {
    fail(fmt::format("index_reduce_(): self ({}) and source ({}) must have the same scalar type",
                     tensor::scalar_type_name(self.dtype()),
                     tensor::scalar_type_name(source_t.dtype())));
  }
  const std::int64_t src_size =
      source_t.dim() == 0 ? 1 : source_t.sizes()[static_cast<std::size_t>(dim)];
  if (index_t.numel() != src_size) {
    fail(fmt::format(
        "index_reduce_(): Number of indices ({}) should be equal to source.size(dim): ({}), for "
        "dim: {}",
        index_t.numel(), src_size, dim));
  }
  const Ints& sizes = self.sizes();
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < self.dim(); ++d) {
    (d < dim ? outer : inner) *= d == dim ? 1 : sizes[static_cast<std::size_t>(d)];
  }
  const std::int64_t self_size = self.dim() == 0 ? 1 : sizes[static_cast<std::size_t>(dim)];
  const Tensor index = to_dtype(index_t, DType::kInt64), source = source_t.contiguous();
  Tensor out = self.contiguous().copy();
  const auto* idx = index.data<std::int64_t>();
  const std::int64_t n = index.numel();
  for (std::int64_t i = 0; i < n; ++i) {
    if (idx[i] < -self_size || idx[i] >= self_size) fail_index("index out of range in self");
  }
  auto row = [&](std::int64_t i) { return idx[i] < 0 ? idx[i] + self_size : idx[i]; };
  dispatch_numeric(self.dtype(), "index_reduce_func_cpu_", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      T* o = out.template mutable_data<T>();
      const T* src = source.template data<T>();
      std::vector<std::int64_t> count(static_cast<std::size_t>(self_size), include_self ? 1 : 0);
      auto at = [&](std::int64_t a, std::int64_t r, std::int64_t b) {
        return (a * self_size + r) * inner + b;
      };
      if (!include_self) {
        for (std::int64_t i = 0; i < n; ++i) {
          for (std::int64_t a = 0; a < outer; ++a) {
            for (std::int64_t b = 0; b < inner; ++b) {
              o[at(a, row(i), b)] = reduction_identity<T>(*how);
            }
          }
        }
      }
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t r = row(i);
        ++count[static_cast<std::size_t>(r)];
        for (std::int64_t a = 0; a < outer; ++a) {
          for (std::int64_t b = 0; b < inner; ++b) {
            T& x = o[at(a, r, b)];
            x = reduce_into(*how, x, src[(a * n + i) * inner + b]);
          }
        }
      }
      if (how != IndexReduction::kMean) return;
      for (std::int64_t a = 0; a < outer; ++a) {
        for (std::int64_t r = 0; r < self_size; ++r) {
          for (std::int64_t b = 0; b < inner; ++b) {
            T& x = o[at(a, r, b)];
            x = mean_of(x, count[static_cast<std::size_t>(r)]);
          }
        }
      }
    }
  });
  return out;
}

template <bool kInPlace>
void index_reduce(Stack& s) {
  IValue include = pop(s), reduce = pop(s), source = pop(s), index = pop(s), dim = pop(s),
         self = pop(s);
  Tensor out = index_reduce_impl(self.to_tensor(), dim.to_int(), index.to_tensor(),
                                 source.to_tensor(), reduce.to_string(), include.to_bool());
  if constexpr (kInPlace) {
    push_in_place(s, self, out);
  } else {
    s.emplace_back(std::move(out));
  }
}

// vander(x, N, increasing): columns x^0 .. x^(N-1) (decreasing unless asked), by cumprod
// (integers as int64).
void vander(Stack& s) {
  IValue increasing = pop(s), n_v = pop(s), x = pop(s);
  const Tensor& t = x.to_tensor();
  if (t.dim() != 1) fail("x must be a one-dimensional tensor.");
  std::int64_t n = t.sizes()[0];
  if (!n_v.is_none()) {
    n = n_v.to_int();
    if (n < 0) fail("N must be non-negative.");
  }
  const DType dtype = is_floating(t.dtype()) ? t.dtype() : DType::kInt64;
  IValue out;
  if (n == 0) {
    out =
        run_op("aten::zeros", {int_list_value({t.sizes()[0], 0}), dtype_value(dtype), {}, {}, {}});
  } else {
    IValue ones =
        run_op("aten::ones", {int_list_value({t.sizes()[0], 1}), dtype_value(dtype), {}, {}, {}});
    if (n == 1) {
      out = ones;
    } else {
      IValue col =
          run_op("aten::to.dtype", {run_op("aten::unsqueeze", {x, IValue(1)}), dtype_value(dtype),
                                    IValue(false), IValue(false), IValue()});
      IValue rest =
          run_op("aten::expand", {col, int_list_value({t.sizes()[0], n - 1}), IValue(false)});
      rest = run_op("aten::cumprod", {rest, IValue(1), IValue()});
      out = run_op("aten::cat", {IValue::list({ones, rest}), IValue(1)});
    }
  }
  if (!increasing.to_bool()) out = run_op("aten::flip", {out, int_list_value({1})});
  s.push_back(out);
}

// linalg.vander(x, N): powers x^0 .. x^(N-1) along a new last dimension.
void linalg_vander(Stack& s) {
  IValue n_v = pop(s), x = pop(s);
  const Tensor& t = x.to_tensor();
  const DType type = t.dtype();
  if (!(type == DType::kFloat32 || type == DType::kFloat64 ||
        (!is_floating(type) && type != DType::kBool))) {
    fail(fmt::format(
        "linalg.vander supports floating point, complex, and integer tensors, but got {}",
        tensor::scalar_type_name(type)));
  }
  IValue xs = t.dim() == 0 ? run_op("aten::unsqueeze", {x, IValue(-1)}) : x;
  Ints shape = xs.to_tensor().sizes();
  const std::int64_t n = n_v.is_none() ? shape.back() : n_v.to_int();
  if (n <= 1) fail("N must be greater than 1.");
  shape.push_back(n - 1);
  IValue powers =
      run_op("aten::cumprod", {run_op("aten::expand", {run_op("aten::unsqueeze", {xs, IValue(-1)}),
                                                       int_list_value(shape), IValue(false)}),
                               IValue(-1), IValue()});
  shape.back() = 1;
  IValue ones = run_op(
      "aten::ones", {int_list_value(shape), dtype_value(powers.to_tensor().dtype()), {}, {}, {}});
  s.push_back(run_op("aten::cat", {IValue::list({ones, powers}), IValue(-1)}));
}

}  // namespace

void register_split_fill_ops(OperatorRegistry& r) {
  r.add({"aten::hsplit.int", 2, {}, direction_split<1, true>});
  r.add({"aten::hsplit.array", 2, {}, direction_split<1, false>});
  r.add({"aten::vsplit.int", 2, {}, direction_split<0, true>});
  r.add({"aten::vsplit.array", 2, {}, direction_split<0, false>});
  r.add({"aten::dsplit.int", 2, {}, direction_split<2, true>});
  r.add({"aten::dsplit.array", 2, {}, direction_split<2, false>});
  r.add({"aten::diagflat", 2, {IValue(0)}, diagflat});
  r.add({"aten::sum_to_size", 2, {}, sum_to_size});
  r.add({"aten::fill_diagonal_", 3, {IValue(false)}, fill_diagonal_});
  r.add({"aten::put", 4, {IValue(false)}, put<false>});
  r.add({"aten::put_", 4, {IValue(false)}, put<true>});
  r.add({"aten::index_reduce", 6, {IValue(true)}, index_reduce<false>});
  r.add({"aten::index_reduce_", 6, {IValue(true)}, index_reduce<true>});
  r.add({"aten::vander", 3, {IValue(), IValue(false)}, vander});
  r.add({"aten::linalg_vander", 2, {IValue()}, linalg_vander});
}

}  // namespace symbolite::ops
