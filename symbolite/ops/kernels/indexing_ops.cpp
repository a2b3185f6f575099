// Advanced indexing: index.Tensor (`x[idx]`, `x[mask]`, `x[i, j]`, `x[:, idx]`) and
// index_select, with PyTorch 1.13's checks in its order and its exact messages (which differ
// between the two operators, and for index_select between its code paths).
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/error.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

// The element offsets (in `strides`) of every index of `sizes`, in row-major order.
Sizes offsets_of(const Sizes& sizes, const Sizes& strides) {
  Sizes out;
  std::array<const std::int64_t*, 1> st{strides.data()};
  for_each_offset<1>(sizes, st, [&](const std::array<std::int64_t, 1>& o) { out.push_back(o[0]); });
  return out;
}

// The number of elements of the dimensions after the indexed ones (`sizes`, `strides` in
// src), if they lie consecutively in src in row-major order (dimensions of size 1 aside): a
// run each (pre, base) pair copies at once. 0 otherwise.
std::int64_t consecutive_run(const Sizes& sizes, const Sizes& strides) {
  std::int64_t run = 1;
  for (std::size_t k = sizes.size(); k-- > 0;) {
    if (sizes[k] == 1) continue;
    if (strides[k] != run) return 0;
    run *= sizes[k];
  }
  return run;
}

// out[p, b, q] = src[pre[p] + base[b] + q] for q in [0, run): each (p, b) a run copied at
// once, by element size, so every dtype works.
void gather_runs(const Tensor& src, const Sizes& pre, const Sizes& base, std::int64_t run,
                 const Tensor& out) {
  const std::size_t size = src.element_size();
  const std::size_t bytes = static_cast<std::size_t>(run) * size;
  const std::uint8_t* from = src.raw_data();
  std::uint8_t* to = out.storage().mutable_data() + out.storage_offset() * size;
  for (std::int64_t p : pre) {
    for (std::int64_t b : base) {
      std::memcpy(to, from + static_cast<std::size_t>(p + b) * size, bytes);
      to += bytes;
    }
  }
}

// out[p, b, q] = src[pre[p] + base[b] + post offset q] into the contiguous `out`, the
// dimensions after the indexed ones `post_sizes` with `post_strides` in src: by runs where
// they are consecutive (their offsets never listed), else element by element.
void gather(const Tensor& src, const Sizes& pre, const Sizes& base, const Sizes& post_sizes,
            const Sizes& post_strides, const Tensor& out) {
  const std::int64_t run = consecutive_run(post_sizes, post_strides);
  if (run > 1) return gather_runs(src, pre, base, run, out);
  const Sizes post = offsets_of(post_sizes, post_strides);
  auto copy = [&](auto tag) {
    using U = decltype(tag);
    const U* from = reinterpret_cast<const U*>(src.raw_data());
    U* to = reinterpret_cast<U*>(out.storage().mutable_data()) + out.storage_offset();
    for (std::int64_t p : pre) {
      for (std::int64_t b : base) {
        for (std::int64_t q : post) *to++ = from[p + b + q];
      }
    }
  };
  switch (src.element_size()) {
    case 1:
      return copy(std::uint8_t{});
    case 2:
      return copy(std::uint16_t{});
    case 4:
      return copy(std::uint32_t{});
    default:
      return copy(std::uint64_t{});
  }
}

// A long or int index tensor's values, in row-major order.
Sizes index_values(const Tensor& index) {
  Tensor c = index.contiguous();
  Sizes out(static_cast<std::size_t>(c.numel()));
  if (c.dtype() == DType::kInt32) {
    const std::int32_t* p = c.data<std::int32_t>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    const std::int64_t* p = c.data<std::int64_t>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  }
  return out;
}

// A bool or uint8 mask as PyTorch's expandTensors turns it into indices: the columns of its
// nonzero(), one 1-D long tensor per mask dimension.
std::vector<Tensor> mask_indices(const Tensor& mask) {
  Tensor m = mask.contiguous();
  auto k = static_cast<std::size_t>(m.dim());
  Sizes strides = tensor::contiguous_strides(m.sizes());
  std::vector<Sizes> columns(k);
  const std::uint8_t* p = m.raw_data();
  for (std::int64_t i = 0; i < m.numel(); ++i) {
    if (p[i] == 0) continue;
    std::int64_t rest = i;
    for (std::size_t d = 0; d < k; ++d) {
      columns[d].push_back(rest / strides[d]);
      rest %= strides[d];
    }
  }
  std::vector<Tensor> out;
  for (const Sizes& c : columns) {
    Tensor t = Tensor::uninitialized({static_cast<std::int64_t>(c.size())}, DType::kInt64);
    if (!c.empty()) std::memcpy(t.mutable_data<std::int64_t>(), c.data(), c.size() * sizeof(c[0]));
    out.push_back(std::move(t));
  }
  return out;
}

bool is_mask(const Tensor& t) { return t.dtype() == DType::kBool || t.dtype() == DType::kUInt8; }

// index.Tensor(Tensor self, Tensor?[] indices): each index tensor (long, or a bool/uint8 mask
// standing for its nonzero positions) picks along one dimension of self, None keeps one.
// The index tensors broadcast to one shape B. When they are adjacent, B replaces their
// dimensions in place; otherwise B comes first and the kept dimensions follow.
void index_tensor(Stack& s) {
  IValue indices_v = pop(s), self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  const IValueList& items =
      indices_v.is(IValue::Kind::kTuple) ? indices_v.to_tuple() : indices_v.to_list();
  auto too_many = [&](std::size_t got) {
    fail_index(
        fmt::format("too many indices for tensor of dimension {} (got {})", self.dim(), got));
  };
  if (static_cast<std::int64_t>(items.size()) > self.dim()) too_many(items.size());
  for (const auto& item : items) {
    if (item.is_none()) continue;
    DType d = item.to_tensor().dtype();
    if (d != DType::kInt64 && !is_mask(item.to_tensor())) {
      fail_index("tensors used as indices must be long, byte or bool tensors");
    }
  }
  // One entry per dimension of self it addresses (masks address several).
  std::vector<std::optional<Tensor>> per_dim;
  for (const auto& item : items) {
    if (item.is_none()) {
      per_dim.emplace_back();
      continue;
    }
    const Tensor& t = item.to_tensor();
    if (!is_mask(t)) {
      per_dim.emplace_back(t);
      continue;
    }
    for (std::int64_t j = 0; j < t.dim(); ++j) {
      std::int64_t src = wrap_dim(static_cast<std::int64_t>(per_dim.size()) + j, self.dim());
      if (t.sizes()[static_cast<std::size_t>(j)] != self.sizes()[static_cast<std::size_t>(src)]) {
        fail_index(fmt::format(
            "The shape of the mask {} at index {} does not match the shape "
            "of the indexed tensor {} at index {}",
            tensor::format_sizes(t.sizes()), j, tensor::format_sizes(self.sizes()), src));
      }
    }
    for (Tensor& column : mask_indices(t)) per_dim.emplace_back(std::move(column));
  }
  if (static_cast<std::int64_t>(per_dim.size()) > self.dim()) too_many(per_dim.size());
  per_dim.resize(static_cast<std::size_t>(self.dim()));

  // The indexed dimensions, and the broadcast shape of their index tensors.
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < per_dim.size(); ++d) {
    if (per_dim[d]) dims.push_back(d);
  }
  if (dims.empty()) {
    throw Error(ErrorKind::kUnsupported,
                "aten::index.Tensor: every index is None or an empty mask; symbolite needs at "
                "least one index tensor");
  }
  Sizes shape = per_dim[dims[0]]->sizes();
  try {
    for (std::size_t k = 1; k < dims.size(); ++k) {
      shape = tensor::broadcast_shapes(shape, per_dim[dims[k]]->sizes());
    }
  } catch (const Error&) {
    std::string shapes;
    for (std::size_t d : dims) {
      shapes += (shapes.empty() ? "" : ", ") + tensor::format_sizes(per_dim[d]->sizes());
    }
    fail_index("shape mismatch: indexing tensors could not be broadcast together with shapes " +
               shapes);
  }

  // Kept dimensions: before the indexed ones (only when those are adjacent) and after.
  bool adjacent = dims.back() - dims.front() + 1 == dims.size();
  Sizes pre_sizes, pre_strides, post_sizes, post_strides;
  for (std::size_t d = 0; d < per_dim.size(); ++d) {
    if (per_dim[d]) continue;
    bool before = adjacent && d < dims.front();
    (before ? pre_sizes : post_sizes).push_back(self.sizes()[d]);
    (before ? pre_strides : post_strides).push_back(self.strides()[d]);
  }
  Sizes out_sizes = pre_sizes;
  out_sizes.insert(out_sizes.end(), shape.begin(), shape.end());
  out_sizes.insert(out_sizes.end(), post_sizes.begin(), post_sizes.end());
  bool indexes_empty_dim = false;
  for (std::size_t d : dims) indexes_empty_dim = indexes_empty_dim || self.sizes()[d] == 0;
  if (indexes_empty_dim && tensor::checked_numel(shape) != 0) {
    fail_index("index is out of bounds for dimension with size 0");
  }
  Tensor out = Tensor::uninitialized(out_sizes, self.dtype());
  if (out.numel() == 0) {
    s.emplace_back(std::move(out));
    return;
  }

  // The offset each position of B selects; checked in PyTorch's order (position by
  // position, then index tensor by index tensor, numbered among the index tensors).
  std::vector<Sizes> values;
  for (std::size_t d : dims) {
    Tensor idx = *per_dim[d];
    const std::int64_t* p = idx.data<std::int64_t>();
    Sizes v;
    for (std::int64_t o : offsets_of(shape, broadcast_strides(idx, shape))) v.push_back(p[o]);
    values.push_back(std::move(v));
  }
  Sizes base(values[0].size(), 0);
  for (std::size_t b = 0; b < base.size(); ++b) {
    for (std::size_t j = 0; j < dims.size(); ++j) {
      std::int64_t v = values[j][b];
      std::int64_t size = self.sizes()[dims[j]];
      if (v < -size || v >= size) {
        fail_index(
            fmt::format("index {} is out of bounds for dimension {} with size {}", v, j, size));
      }
      base[b] += (v < 0 ? v + size : v) * self.strides()[dims[j]];
    }
  }
  gather(self, offsets_of(pre_sizes, pre_strides), base, post_sizes, post_strides, out);
  s.emplace_back(std::move(out));
}

// index_select(Tensor self, int dim, Tensor index): PyTorch 1.13's CPU kernel, whose bounds
// message depends on its path: dim 1 of a tensor with 2+ dimensions takes a fast path with its
// own RuntimeError; the others raise IndexError "index out of range in self". Negative
// indices are out of range.
void index_select(Stack& s) {
  IValue index_v = pop(s), dim_v = pop(s), self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  const Tensor& index = index_v.to_tensor();
  std::int64_t dim = wrap_dim(dim_v.to_int(), self.dim());
  if (index.dim() > 1) fail_index("index_select(): Index is supposed to be a vector");
  if (index.dtype() != DType::kInt64 && index.dtype() != DType::kInt32) {
    fail("index_select(): Expected dtype int32 or int64 for index");
  }
  Sizes values = index_values(index);
  auto numel = static_cast<std::int64_t>(values.size());
  auto d = static_cast<std::size_t>(dim);
  Sizes out_sizes = self.sizes();
  if (self.dim() > 0) out_sizes[d] = numel;
  Tensor out = Tensor::uninitialized(out_sizes, self.dtype());  // gather writes every element
  auto check = [&](std::int64_t limit) {
    for (std::int64_t v : values) {
      if (v < 0 || v >= limit) fail_index("index out of range in self");
    }
  };
  if (self.dim() > 1) {
    if (numel == 0) {
      s.emplace_back(std::move(out));
      return;
    }
    if (dim == 1) {
      for (std::int64_t v : values) {
        if (v < 0 || v >= self.sizes()[1]) {
          fail(fmt::format("INDICES element is out of DATA bounds, id={} axis_dim={}", v,
                           self.sizes()[1]));
        }
      }
    } else if (self.numel() == 0 && self.sizes()[d] <= 0) {
      fail("index_select(): self indexing axis dim should be positive");
    } else {
      check(self.sizes()[d]);
    }
  } else {
    check(self.numel());
  }
  if (out.numel() == 0) {
    s.emplace_back(std::move(out));
    return;
  }
  if (self.dim() == 0) values.resize(1);  // a 0-dim result holds the first pick
  Sizes pre_sizes(self.sizes().begin(), self.sizes().begin() + dim);
  Sizes pre_strides(self.strides().begin(), self.strides().begin() + dim);
  Sizes post_sizes, post_strides;
  if (self.dim() > 0) {
    post_sizes.assign(self.sizes().begin() + dim + 1, self.sizes().end());
    post_strides.assign(self.strides().begin() + dim + 1, self.strides().end());
  }
  std::int64_t stride = self.dim() == 0 ? 0 : self.strides()[d];
  for (std::int64_t& v : values) v *= stride;
  gather(self, offsets_of(pre_sizes, pre_strides), values, post_sizes, post_strides, out);
  s.emplace_back(std::move(out));
}

// Steps a row-major multi-index over `sizes` to the next element.
void next_index(std::vector<std::int64_t>& index, const Sizes& sizes) {
  for (std::size_t k = index.size(); k-- > 0;) {
    if (++index[k] < sizes[k]) return;
    index[k] = 0;
  }
}

// The indices of self's nonzero elements (NaN counts), [count, dim] int64 in row-major order.
Tensor nonzero_indices(const Tensor& self) {
  const Tensor x = self.contiguous();
  const std::int64_t dims = x.dim();
  std::vector<std::int64_t> found;
  std::int64_t count = 0;
  dispatch_all(x.dtype(), "nonzero_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.template data<T>();
    std::vector<std::int64_t> index(static_cast<std::size_t>(dims), 0);
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      if (p[i] != T{}) {
        found.insert(found.end(), index.begin(), index.end());
        ++count;
      }
      next_index(index, x.sizes());
    }
  });
  Tensor out = Tensor::uninitialized({count, dims}, DType::kInt64);
  std::copy(found.begin(), found.end(), out.mutable_data<std::int64_t>());
  return out;
}

// aten::nonzero(Tensor self) -> Tensor
void nonzero(Stack& s) {
  IValue self = pop(s);
  s.emplace_back(nonzero_indices(self.to_tensor()));
}

// aten::where(Tensor condition) -> Tensor[]: nonzero's columns, one index tensor per dimension
// (as torch.nonzero(condition, as_tuple=True)).
void where_condition(Stack& s) {
  IValue condition = pop(s);
  const Tensor indices = nonzero_indices(condition.to_tensor());
  const std::int64_t count = indices.sizes()[0], dims = indices.sizes()[1];
  IValueList columns;
  for (std::int64_t d = 0; d < dims; ++d) {
    Tensor column = Tensor::uninitialized({count}, DType::kInt64);
    std::int64_t* dst = column.mutable_data<std::int64_t>();
    const std::int64_t* src = indices.data<std::int64_t>();
    for (std::int64_t i = 0; i < count; ++i) dst[i] = src[i * dims + d];
    columns.emplace_back(std::move(column));
  }
  s.emplace_back(IValue::list(std::move(columns)));
}

}  // namespace

void register_indexing_ops(OperatorRegistry& r) {
  r.add({"aten::index.Tensor", 2, {}, index_tensor});
  r.add({"aten::nonzero", 1, {}, nonzero});
  r.add({"aten::where", 1, {}, where_condition});
  r.add({"aten::index_select", 3, {}, index_select});
}

}  // namespace symbolite::ops
