// Shape, indexing and factory operators. Views (select, slice, view, reshape when possible,
// permute, transpose, unsqueeze, squeeze, chunk, split, expand, flatten) share the input's
// storage, as in PyTorch, so in-place kernels on a view write through to its base.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/integer_range.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/error.h"
#include "symbolite/support/machine_memory.h"
#include "symbolite/support/parallel_for.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

Tensor make_view(const Tensor& t, Sizes sizes, Sizes strides, std::int64_t offset) {
  return Tensor::from_storage(t.storage(), t.dtype(), std::move(sizes), std::move(strides), offset);
}

// at::infer_size: resolves one -1 in `shape` for `numel` elements.
Sizes infer_size(const Sizes& shape, std::int64_t numel) {
  Sizes res = shape;
  std::int64_t newsize = 1;
  std::optional<std::size_t> infer_dim;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (infer_dim) fail("only one dimension can be inferred");
      infer_dim = d;
    } else if (shape[d] >= 0) {
      if (__builtin_mul_overflow(newsize, shape[d], &newsize)) {
        fail(fmt::format("shape '{}' is invalid for input of size {}", tensor::format_sizes(shape),
                         numel));
      }
    } else {
      fail(fmt::format("invalid shape dimension {}", shape[d]));
    }
  }
  if (numel == newsize || (infer_dim && newsize > 0 && numel % newsize == 0)) {
    if (infer_dim) {
      if (newsize == 0) {
        fail(
            fmt::format("cannot reshape tensor of 0 elements into shape {} because the "
                        "unspecified dimension size -1 can be any value and is ambiguous",
                        tensor::format_sizes(shape)));
      }
      res[*infer_dim] = numel / newsize;
    }
    return res;
  }
  fail(fmt::format("shape '{}' is invalid for input of size {}", tensor::format_sizes(shape),
                   numel));
}

// at::detail::computeStride: strides viewing `t` as `newshape` without copying, if any.
std::optional<Sizes> compute_stride(const Tensor& t, const Sizes& newshape) {
  const Sizes& oldshape = t.sizes();
  const Sizes& oldstride = t.strides();
  if (oldshape.empty()) return Sizes(newshape.size(), 1);
  if (t.numel() == 0 && oldshape == newshape) return oldstride;
  Sizes newstride(newshape.size(), 0);
  if (t.numel() == 0) {
    for (std::int64_t d = static_cast<std::int64_t>(newshape.size()) - 1; d >= 0; --d) {
      auto ud = static_cast<std::size_t>(d);
      newstride[ud] = ud + 1 == newshape.size()
                          ? 1
                          : std::max<std::int64_t>(newshape[ud + 1], 1) * newstride[ud + 1];
    }
    return newstride;
  }
  std::int64_t view_d = static_cast<std::int64_t>(newshape.size()) - 1;
  std::int64_t chunk_base_stride = oldstride.back();
  std::int64_t tensor_numel = 1;
  std::int64_t view_numel = 1;
  for (std::int64_t tensor_d = static_cast<std::int64_t>(oldshape.size()) - 1; tensor_d >= 0;
       --tensor_d) {
    auto td = static_cast<std::size_t>(tensor_d);
    tensor_numel *= oldshape[td];
    if (tensor_d == 0 ||
        (oldshape[td - 1] != 1 && oldstride[td - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || newshape[static_cast<std::size_t>(view_d)] == 1)) {
        newstride[static_cast<std::size_t>(view_d)] = view_numel * chunk_base_stride;
        view_numel *= newshape[static_cast<std::size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

Tensor view_impl(const Tensor& t, const Sizes& size) {
  Sizes shape = infer_size(size, t.numel());
  auto strides = compute_stride(t, shape);
  if (!strides) {
    fail(
        "view size is not compatible with input tensor's size and stride (at least one "
        "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  }
  return make_view(t, shape, *strides, t.storage_offset());
}

Tensor reshape_impl(const Tensor& t, const Sizes& size) {
  Sizes shape = infer_size(size, t.numel());
  if (auto strides = compute_stride(t, shape)) {
    return make_view(t, shape, *strides, t.storage_offset());
  }
  Tensor c = t.contiguous();
  return make_view(c, shape, tensor::contiguous_strides(shape), c.storage_offset());
}

Tensor select_impl(const Tensor& t, std::int64_t dim, std::int64_t index) {
  if (t.dim() == 0) throw OpError("IndexError", "select() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.dim());
  auto d = static_cast<std::size_t>(dim);
  std::int64_t size = t.sizes()[d];
  if (index < -size || index >= size) {
    throw OpError("IndexError",
                  fmt::format("select(): index {} out of range for tensor of size {} at "
                              "dimension {}",
                              index, tensor::format_sizes(t.sizes()), dim));
  }
  if (index < 0) index += size;
  Sizes sizes = t.sizes(), strides = t.strides();
  std::int64_t offset = t.storage_offset() + index * strides[d];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return make_view(t, sizes, strides, offset);
}

Tensor narrow(const Tensor& t, std::size_t d, std::int64_t start, std::int64_t length) {
  Sizes sizes = t.sizes();
  sizes[d] = length;
  return make_view(t, sizes, t.strides(), t.storage_offset() + start * t.strides()[d]);
}

Tensor unsqueeze_impl(const Tensor& t, std::int64_t dim) {
  dim = wrap_dim(dim, t.dim() + 1);
  Sizes sizes = t.sizes(), strides = t.strides();
  auto d = static_cast<std::size_t>(dim);
  std::int64_t stride = d >= sizes.size() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, stride);
  return make_view(t, sizes, strides, t.storage_offset());
}

// --- kernels ---------------------------------------------------------------------------

void select(Stack& s) {
  IValue index = pop(s), dim = pop(s), self = pop(s);
  s.emplace_back(select_impl(self.to_tensor(), dim.to_int(), index.to_int()));
}

void slice(Stack& s) {
  IValue step_v = pop(s), end_v = pop(s), start_v = pop(s), dim_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() == 0) throw OpError("IndexError", "slice() cannot be applied to a 0-dim tensor.");
  auto d = static_cast<std::size_t>(wrap_dim(dim_v.to_int(), t.dim()));
  std::int64_t start = start_v.is_none() ? 0 : start_v.to_int();
  std::int64_t end = end_v.is_none() ? std::numeric_limits<std::int64_t>::max() : end_v.to_int();
  std::int64_t step = step_v.to_int();
  if (step <= 0) fail("slice step must be positive");
  std::int64_t size = t.sizes()[d];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<std::int64_t>(start, 0, size);
  if (end < start)
    end = start;
  else if (end >= size)
    end = size;
  Sizes sizes = t.sizes(), strides = t.strides();
  std::int64_t offset = t.storage_offset() + start * strides[d];
  sizes[d] = (end - start) / step + ((end - start) % step != 0 ? 1 : 0);  // rounded up
  // As PyTorch's, wrapping: a step past the dimension leaves one element, whose stride no
  // index multiplies.
  strides[d] = wrapping_mul(strides[d], step);
  s.emplace_back(make_view(t, sizes, strides, offset));
}

void view(Stack& s) {
  IValue size = pop(s), self = pop(s);
  s.emplace_back(view_impl(self.to_tensor(), int_list_arg(size)));
}

void reshape(Stack& s) {
  IValue size = pop(s), self = pop(s);
  s.emplace_back(reshape_impl(self.to_tensor(), int_list_arg(size)));
}

// unflatten.int: dimension `dim` split into `sizes` (one may be -1), as a view.
void unflatten(Stack& s) {
  IValue sizes_v = pop(s), dim_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() == 0) {
    throw OpError(
        "IndexError",
        fmt::format("Dimension specified as {} but tensor has no dimensions", dim_v.to_int()));
  }
  std::int64_t dim = wrap_dim(dim_v.to_int(), t.dim());
  Sizes sizes = int_list_arg(sizes_v);
  if (sizes.empty()) fail("unflatten: sizes must be non-empty");
  Sizes inferred;
  try {
    inferred = infer_size(sizes, t.sizes()[static_cast<std::size_t>(dim)]);
  } catch (const OpError& e) {
    // PyTorch rewords the two failures at::infer_size raises as std::runtime_error.
    if (e.message().find("is invalid for input of size") != std::string::npos) {
      fail(fmt::format(
          "unflatten: Provided sizes {} don't multiply up to the size of dim {} ({}) in the "
          "input tensor",
          tensor::format_sizes(sizes), dim, t.sizes()[static_cast<std::size_t>(dim)]));
    }
    if (e.message() == "only one dimension can be inferred") {
      fail("unflatten got an unexpected error:\n" + e.message());
    }
    throw;
  }
  Sizes shape = t.sizes();
  shape.erase(shape.begin() + dim);
  shape.insert(shape.begin() + dim, inferred.begin(), inferred.end());
  s.emplace_back(view_impl(t, shape));
}

void flatten(Stack& s) {
  IValue end_v = pop(s), start_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  std::int64_t start = wrap_dim(start_v.to_int(), t.dim());
  std::int64_t end = wrap_dim(end_v.to_int(), t.dim());
  if (start > end) fail("flatten() has invalid args: start_dim cannot come after end_dim");
  if (t.dim() == 0) {
    s.emplace_back(reshape_impl(t, {1}));
    return;
  }
  if (start == end) {
    s.push_back(self);
    return;
  }
  Sizes shape(t.sizes().begin(), t.sizes().begin() + start);
  std::int64_t n = 1;
  for (std::int64_t d = start; d <= end; ++d) n *= t.sizes()[static_cast<std::size_t>(d)];
  shape.push_back(n);
  shape.insert(shape.end(), t.sizes().begin() + end + 1, t.sizes().end());
  s.emplace_back(reshape_impl(t, shape));
}

void permute(Stack& s) {
  IValue dims_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  Sizes dims = int_list_arg(dims_v);
  if (static_cast<std::int64_t>(dims.size()) != t.dim()) {
    fail(
        fmt::format("permute(sparse_coo): number of dimensions in the tensor input does not "
                    "match the length of the desired ordering of dimensions i.e. input.dim() = "
                    "{} is not equal to len(dims) = {}",
                    t.dim(), dims.size()));
  }
  Sizes sizes(dims.size()), strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    auto d = static_cast<std::size_t>(wrap_dim(dims[i], t.dim()));
    if (seen[d]) fail("permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = t.sizes()[d];
    strides[i] = t.strides()[d];
  }
  s.emplace_back(make_view(t, sizes, strides, t.storage_offset()));
}

void transpose(Stack& s) {
  IValue d1_v = pop(s), d0_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  std::int64_t d0 = wrap_dim(d0_v.to_int(), t.dim());
  std::int64_t d1 = wrap_dim(d1_v.to_int(), t.dim());
  if (t.dim() == 0) {
    s.push_back(self);
    return;
  }
  Sizes sizes = t.sizes(), strides = t.strides();
  std::swap(sizes[static_cast<std::size_t>(d0)], sizes[static_cast<std::size_t>(d1)]);
  std::swap(strides[static_cast<std::size_t>(d0)], strides[static_cast<std::size_t>(d1)]);
  s.emplace_back(make_view(t, sizes, strides, t.storage_offset()));
}

void t_op(Stack& s) {
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() > 2) {
    fail(fmt::format("t() expects a tensor with <= 2 dimensions, but self is {}D", t.dim()));
  }
  if (t.dim() < 2) {
    s.push_back(self);
    return;
  }
  s.emplace_back(make_view(t, {t.sizes()[1], t.sizes()[0]}, {t.strides()[1], t.strides()[0]},
                           t.storage_offset()));
}

void unsqueeze(Stack& s) {
  IValue dim = pop(s), self = pop(s);
  s.emplace_back(unsqueeze_impl(self.to_tensor(), dim.to_int()));
}

// squeeze.dim: a view without dimension `dim` if its size is 1, else the same shape.
Tensor squeeze_dim_impl(const Tensor& t, std::int64_t dim_arg) {
  std::int64_t dim = wrap_dim(dim_arg, t.dim());
  if (t.dim() == 0 || t.sizes()[static_cast<std::size_t>(dim)] != 1) {
    return make_view(t, t.sizes(), t.strides(), t.storage_offset());
  }
  Sizes sizes = t.sizes(), strides = t.strides();
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor squeeze_impl(const Tensor& t) {
  Sizes sizes, strides;
  for (std::size_t d = 0; d < t.sizes().size(); ++d) {
    if (t.sizes()[d] == 1) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

void squeeze_dim(Stack& s) {
  IValue dim = pop(s), self = pop(s);
  s.emplace_back(squeeze_dim_impl(self.to_tensor(), dim.to_int()));
}

void squeeze(Stack& s) { s.emplace_back(squeeze_impl(pop(s).to_tensor())); }

// The in-place shape changes restride the tensor object itself, so every holder of it (not
// of a view of it) sees the new shape, as with PyTorch's TensorImpl.
void unsqueeze_(Stack& s) {
  IValue dim = pop(s), self = pop(s);
  self.set_tensor(unsqueeze_impl(self.to_tensor(), dim.to_int()));
  s.push_back(std::move(self));
}

void squeeze__dim(Stack& s) {
  IValue dim = pop(s), self = pop(s);
  self.set_tensor(squeeze_dim_impl(self.to_tensor(), dim.to_int()));
  s.push_back(std::move(self));
}

void squeeze_(Stack& s) {
  IValue self = pop(s);
  self.set_tensor(squeeze_impl(self.to_tensor()));
  s.push_back(std::move(self));
}

void contiguous(Stack& s) {
  IValue memory_format = pop(s), self = pop(s);
  (void)memory_format;  // values are the same in every layout; symbolite is row-major
  const Tensor& t = self.to_tensor();
  if (t.is_contiguous()) {
    s.push_back(self);
  } else {
    s.emplace_back(t.contiguous());
  }
}

// The copies of a concatenation whose inputs are contiguous and of the output's dtype: for
// each index over the dimensions before `d`, each input's block of bytes to its place in the
// output. Split across threads by ranges of the total bytes, so one parallel loop serves
// every input (DenseNet's cats, a memmove per input on the calling thread, took longer on
// two threads than on one: 2.9 against 2.6 ms a run). False, copying nothing, when the blocks
// would average under 64 bytes (a cat along the last dimension of columns): the element loop
// is as fast, and needs no list.
bool cat_contiguous(const std::vector<const Tensor*>& inputs, std::size_t d, Tensor& out) {
  const std::size_t esize = tensor::element_size(out.dtype());
  std::int64_t outer = 1;
  for (std::size_t k = 0; k < d; ++k) outer *= out.sizes()[k];
  constexpr std::int64_t kMinAverageBytes = 64;
  if (out.numel() * static_cast<std::int64_t>(esize) <
      outer * static_cast<std::int64_t>(inputs.size()) * kMinAverageBytes) {
    return false;
  }
  struct Segment {
    const std::uint8_t* from;
    std::uint8_t* to;
    std::int64_t bytes;
    std::int64_t first;  // bytes of the segments before it
  };
  std::vector<Segment> segments;
  segments.reserve(static_cast<std::size_t>(outer) * inputs.size());
  const std::int64_t out_block = out.numel() / std::max<std::int64_t>(outer, 1);
  std::uint8_t* base = out.storage().mutable_data();
  std::int64_t total = 0;
  for (std::int64_t o = 0; o < outer; ++o) {
    std::int64_t at = o * out_block;
    for (const Tensor* t : inputs) {
      const std::int64_t block = t->numel() / outer;
      const std::int64_t bytes = block * static_cast<std::int64_t>(esize);
      if (bytes > 0) {
        segments.push_back(
            {static_cast<const std::uint8_t*>(t->raw_data()) + static_cast<std::size_t>(o * bytes),
             base + static_cast<std::size_t>(at) * esize, bytes, total});
      }
      at += block;
      total += bytes;
    }
  }
  constexpr std::int64_t kBytesPerChunk = std::int64_t{64} << 10;
  parallel_for(total, kBytesPerChunk, [&](std::int64_t begin, std::int64_t end) {
    // The segment holding byte `begin`, then on to `end`.
    auto it = std::upper_bound(segments.begin(), segments.end(), begin,
                               [](std::int64_t at, const Segment& s) { return at < s.first; });
    for (--it; it != segments.end() && it->first < end; ++it) {
      const std::int64_t from = std::max(begin, it->first) - it->first;
      const std::int64_t to = std::min(end, it->first + it->bytes) - it->first;
      if (to > from) {
        std::memcpy(it->to + from, it->from + from, static_cast<std::size_t>(to - from));
      }
    }
  });
  return true;
}

Tensor cat_impl(const std::vector<Tensor>& tensors, std::int64_t dim) {
  if (tensors.empty()) fail("torch.cat(): expected a non-empty list of Tensors");
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].dim() == 0) {
      fail(fmt::format("zero-dimensional tensor (at position {}) cannot be concatenated", i));
    }
  }
  // Legacy rule: 1-D tensors of size 0 are skipped.
  auto skip = [](const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; };
  ResultType rt;
  for (const auto& t : tensors) rt.tensor(t);
  DType dtype = rt.result();
  const Tensor* ref = nullptr;
  for (const auto& t : tensors) {
    if (!skip(t)) {
      ref = &t;
      break;
    }
  }
  if (ref == nullptr) return Tensor::empty({0}, dtype);
  auto d = static_cast<std::size_t>(wrap_dim(dim, ref->dim()));
  Sizes out_sizes = ref->sizes();
  out_sizes[d] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skip(t)) continue;
    if (t.dim() != ref->dim()) {
      fail(fmt::format("Tensors must have same number of dimensions: got {} and {}", ref->dim(),
                       t.dim()));
    }
    for (std::size_t k = 0; k < t.sizes().size(); ++k) {
      if (k != d && t.sizes()[k] != ref->sizes()[k]) {
        fail(
            fmt::format("Sizes of tensors must match except in dimension {}. Expected size {} "
                        "but got size {} for tensor number {} in the list.",
                        d, ref->sizes()[k], t.sizes()[k], i));
      }
    }
    out_sizes[d] += t.sizes()[d];
  }
  // The inputs cover the output along `d`: nothing to zero first.
  Tensor out = Tensor::uninitialized(out_sizes, dtype);
  std::vector<const Tensor*> inputs;
  for (const auto& t : tensors) {
    if (!skip(t)) inputs.push_back(&t);
  }
  if (std::all_of(inputs.begin(), inputs.end(),
                  [&](const Tensor* t) { return t->dtype() == dtype && t->is_contiguous(); }) &&
      cat_contiguous(inputs, d, out)) {
    return out;
  }
  std::int64_t at = 0;
  for (const auto& t : tensors) {
    if (skip(t)) continue;
    copy_into(narrow(out, d, at, t.sizes()[d]), t);
    at += t.sizes()[d];
  }
  return out;
}

void cat(Stack& s) {
  IValue dim = pop(s), tensors = pop(s);
  s.emplace_back(cat_impl(tensor_list_arg(tensors), dim.to_int()));
}

void stack(Stack& s) {
  IValue dim_v = pop(s), tensors_v = pop(s);
  std::vector<Tensor> tensors = tensor_list_arg(tensors_v);
  if (tensors.empty()) fail("stack expects a non-empty TensorList");
  std::int64_t dim = wrap_dim(dim_v.to_int(), tensors[0].dim() + 1);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].sizes() != tensors[0].sizes()) {
      fail(fmt::format(
          "stack expects each tensor to be equal size, but got {} at entry 0 and "
          "{} at entry {}",
          tensor::format_sizes(tensors[0].sizes()), tensor::format_sizes(tensors[i].sizes()), i));
    }
  }
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const auto& t : tensors) parts.push_back(unsqueeze_impl(t, dim));
  s.emplace_back(cat_impl(parts, dim));
}

void chunk(Stack& s) {
  IValue dim_v = pop(s), chunks_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() == 0) fail("chunk expects at least a 1-dimensional tensor");
  std::int64_t chunks = chunks_v.to_int();
  if (chunks <= 0) {
    fail(fmt::format("chunk expects `chunks` to be greater than 0, got: {}", chunks));
  }
  auto d = static_cast<std::size_t>(wrap_dim(dim_v.to_int(), t.dim()));
  std::int64_t dim_size = t.sizes()[d];
  std::int64_t split = dim_size / chunks + (dim_size % chunks != 0 ? 1 : 0);  // rounded up
  IValueList out;
  if (split == 0 && dim_size == 0) {
    // `chunks` empty views (PyTorch's): a count no memory holds fails before the list grows.
    if (!fits_in_memory(static_cast<std::uint64_t>(chunks), sizeof(Tensor))) {
      fail(fmt::format("chunk: {} chunks need more memory than this machine has", chunks));
    }
    for (std::int64_t i = 0; i < chunks; ++i) out.emplace_back(narrow(t, d, 0, 0));
  } else {
    std::int64_t num = std::max<std::int64_t>((dim_size + split - 1) / split, 1);
    std::int64_t last = split - (split * num - dim_size);
    for (std::int64_t i = 0; i < num; ++i) {
      out.emplace_back(narrow(t, d, i * split, i + 1 < num ? split : last));
    }
  }
  s.push_back(IValue::list(std::move(out)));
}

// at::inferExpandGeometry: `t` viewed as `size`, aligned at the last dimension; stride 0
// where a size-1 (or new, leading) dimension grows; -1 keeps an existing size.
void expand(Stack& s) {
  IValue implicit = pop(s), size_v = pop(s), self = pop(s);
  (void)implicit;  // only marks expands the tracer inserted
  const Tensor& t = self.to_tensor();
  Sizes size = int_list_arg(size_v);
  auto ndim = static_cast<std::int64_t>(size.size());
  if (ndim < t.dim()) {
    fail(
        fmt::format("expand(torch.{}Tensor{{{}}}, size={}): the number of sizes provided ({}) "
                    "must be greater or equal to the number of dimensions in the tensor ({})",
                    tensor::scalar_type_name(t.dtype()), tensor::format_sizes(t.sizes()),
                    tensor::format_sizes(size), ndim, t.dim()));
  }
  Sizes sizes(size.size()), strides(size.size());
  for (std::int64_t i = ndim - 1; i >= 0; --i) {
    auto ui = static_cast<std::size_t>(i);
    std::int64_t dim = t.dim() - ndim + i;
    std::int64_t old_size = dim >= 0 ? t.sizes()[static_cast<std::size_t>(dim)] : 1;
    std::int64_t stride = dim >= 0       ? t.strides()[static_cast<std::size_t>(dim)]
                          : i + 1 < ndim ? sizes[ui + 1] * strides[ui + 1]
                                         : 0;
    std::int64_t target = size[ui];
    if (target == -1) {
      if (dim < 0) {
        fail(
            fmt::format("The expanded size of the tensor (-1) isn't allowed in a leading, "
                        "non-existing dimension {}",
                        i));
      }
      target = old_size;
    }
    if (old_size != target) {
      if (old_size != 1) {
        fail(fmt::format(
            "The expanded size of the tensor ({}) must match the existing size ({}) "
            "at non-singleton dimension {}.  Target sizes: {}.  Tensor sizes: {}",
            target, old_size, i, tensor::format_sizes(size), tensor::format_sizes(t.sizes())));
      }
      stride = 0;
    }
    sizes[ui] = target;
    strides[ui] = stride;
  }
  for (std::int64_t n : sizes) {
    // PyTorch's as_strided then fails computing the element count.
    if (n < 0) fail("numel: integer multiplication overflow");
  }
  s.emplace_back(make_view(t, sizes, strides, t.storage_offset()));
}

// split.sizes behaves as split_with_sizes: views of consecutive slices of `dim`.
void split_sizes(Stack& s) {
  IValue dim_v = pop(s), sizes_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() == 0) fail("split expects at least a 1-dimensional tensor");
  auto d = static_cast<std::size_t>(wrap_dim(dim_v.to_int(), t.dim()));
  Sizes split = int_list_arg(sizes_v);
  std::int64_t dim_size = t.sizes()[d];
  IValueList out;
  std::int64_t start = 0;
  for (std::int64_t length : split) {
    if (length < 0) {
      fail(
          fmt::format("split_with_sizes expects split_sizes have only non-negative entries, "
                      "but got split_sizes={}",
                      tensor::format_sizes(split)));
    }
    // As slice(dim, start, start + length): clamped to the dimension.
    std::int64_t from = std::min(start, dim_size);
    std::int64_t to = std::min(start + length, dim_size);
    out.emplace_back(narrow(t, d, from, to - from));
    start += length;
  }
  if (start != dim_size) {
    fail(
        fmt::format("split_with_sizes expects split_sizes to sum exactly to {} (input tensor's "
                    "size at dimension {}), but got split_sizes={}",
                    dim_size, d, tensor::format_sizes(split)));
  }
  s.push_back(IValue::list(std::move(out)));
}

// zeros / ones / empty: (size, dtype, layout, device, pin_memory[, memory_format]).
// A new tensor of `size` (PyTorch's message for a negative dimension).
Tensor new_tensor(const Sizes& size, DType dtype) {
  for (std::int64_t n : size) {
    if (n < 0) {
      fail(fmt::format("Trying to create tensor with negative dimension {}: {}", n,
                       tensor::format_sizes(size)));
    }
  }
  return Tensor::empty(size, dtype);
}

Tensor factory(Stack& s, std::size_t num_args, bool ones) {
  IValue* args = last(s, num_args);
  Sizes size = int_list_arg(args[0]);
  DType dtype = dtype_arg(args[1]).value_or(DType::kFloat32);
  drop(s, num_args);
  Tensor out = new_tensor(size, dtype);
  if (ones) {
    dispatch_all(dtype, "fill_", [&](auto tag) {
      using T = decltype(tag);
      T* p = out.template mutable_data<T>();
      std::fill(p, p + out.numel(), static_cast<T>(1));
    });
  }
  return out;
}

void zeros(Stack& s) { s.emplace_back(factory(s, 5, false)); }

// full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None,
// Device? device=None, bool? pin_memory=None): the default float32 for a float value, else
// int64 (a bool too: the operator's own inference, where Python's torch.full says bool),
// unless a dtype is given.
void full(Stack& s) {
  IValue* args = last(s, 6);
  const IValue value = args[1];
  const DType natural = value.is(IValue::Kind::kDouble) ? DType::kFloat32 : DType::kInt64;
  const DType dtype = dtype_arg(args[2]).value_or(natural);
  const Sizes size = int_list_arg(args[0]);
  drop(s, 6);
  Tensor out = new_tensor(size, dtype);
  const Tensor one = checked_scalar_tensor(value, dtype);
  dispatch_all(dtype, "fill_", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.template mutable_data<T>();
    std::fill(p, p + out.numel(), *one.template data<T>());
  });
  s.emplace_back(std::move(out));
}
void ones(Stack& s) { s.emplace_back(factory(s, 5, true)); }
void empty(Stack& s) { s.emplace_back(factory(s, 6, false)); }

// The one element of `t` converted to T (Tensor.item<T>()): a float to int64 with c10's check,
// so int(tensor) of NaN, an infinity or a float outside int64 fails as in PyTorch.
template <typename T>
T only_element(const Tensor& t) {
  if (t.numel() != 1) {
    fail(fmt::format("a Tensor with {} elements cannot be converted to Scalar", t.numel()));
  }
  return dispatch_all(t.dtype(), "_local_scalar_dense_cpu", [&](auto tag) {
    using E = decltype(tag);
    if constexpr (std::is_floating_point_v<E> && std::is_same_v<T, std::int64_t>) {
      return checked_value<T>(IValue(static_cast<double>(*t.template data<E>())));
    } else {
      return convert<T>(*t.template data<E>());
    }
  });
}

void int_tensor(Stack& s) { s.emplace_back(only_element<std::int64_t>(pop(s).to_tensor())); }
void float_tensor(Stack& s) { s.emplace_back(only_element<double>(pop(s).to_tensor())); }

// bool(tensor): Tensor.is_nonzero (NaN is true).
void bool_tensor(Stack& s) {
  const Tensor t = pop(s).to_tensor();
  if (t.numel() == 0) fail("Boolean value of Tensor with no values is ambiguous");
  if (t.numel() > 1) fail("Boolean value of Tensor with more than one value is ambiguous");
  s.emplace_back(only_element<bool>(t));
}

// len(tensor): the size of the first dimension.
void len_tensor(Stack& s) {
  const Tensor t = pop(s).to_tensor();
  if (t.dim() == 0) fail("len() of a 0-d tensor");
  s.emplace_back(t.sizes()[0]);
}

// aten::item: the one element as a Python number — bool, int for integer dtypes, float.
void item(Stack& s) {
  const Tensor t = pop(s).to_tensor();
  if (t.numel() != 1) {
    fail(fmt::format("a Tensor with {} elements cannot be converted to Scalar", t.numel()));
  }
  Tensor c = t.contiguous();
  if (t.dtype() == tensor::DType::kBool) {
    s.emplace_back(*c.data<bool>());
  } else if (t.dtype() == tensor::DType::kFloat32 || t.dtype() == tensor::DType::kFloat64) {
    s.emplace_back(t.dtype() == tensor::DType::kFloat32 ? double{*c.data<float>()}
                                                        : *c.data<double>());
  } else {
    s.emplace_back(dispatch_all(t.dtype(), "_local_scalar_dense_cpu", [&](auto tag) {
      using T = decltype(tag);
      return convert<std::int64_t>(*c.template data<T>());
    }));
  }
}

// aten::ScalarImplicit (traced models: a tensor where a number is expected): a 0-dim tensor's
// element as aten::item gives it; PyTorch's check refuses any other rank.
void scalar_implicit(Stack& s) {
  if (s.back().to_tensor().dim() != 0) {
    fail("Cannot input a tensor of dimension other than 0 as a scalar argument");
  }
  item(s);
}

// prim::NumToTensor: a zero-dim tensor of the Scalar's own dtype (Long, Double or Bool).
void num_to_tensor(Stack& s) {
  IValue v = pop(s);
  s.emplace_back(scalar_tensor(v, scalar_dtype(v)));
}

// arange(start, end, step, dtype, layout, device, pin_memory) and its shorter overloads:
// int64 when start, end and step are all ints, else the default float32, unless dtype is
// given. PyTorch's checks and size: start, end and step converted to the accumulate type
// (double for floating dtypes, int64 for integers) with c10's check, the size ceil((end -
// start) / step) in double (from the int64 difference for int64), the values start + i * step
// in the accumulate type.
Tensor arange_impl(const IValue& start, const IValue& end, const IValue& step,
                   const IValue& dtype_v) {
  bool any_float = start.is(IValue::Kind::kDouble) || end.is(IValue::Kind::kDouble) ||
                   step.is(IValue::Kind::kDouble);
  DType dtype = dtype_arg(dtype_v).value_or(any_float ? DType::kFloat32 : DType::kInt64);
  if (dtype == DType::kBool) not_implemented("arange_cpu", dtype);
  return dispatch_numeric(dtype, "arange_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
    const Acc xstart = checked_value<Acc>(start), xend = checked_value<Acc>(end),
              xstep = checked_value<Acc>(step);
    // A range wider than int64 has no size (PyTorch's difference and values wrap, undefined).
    Acc difference = 0;
    bool too_wide = false;
    if constexpr (std::is_integral_v<Acc>) {
      too_wide = __builtin_sub_overflow(xend, xstart, &difference);
    }
    double size_d;
    if constexpr (std::is_same_v<T, std::int64_t>) {
      size_d = std::ceil(static_cast<double>(difference) / static_cast<double>(xstep));
    } else {
      size_d = std::ceil((end.to_double() - start.to_double()) / step.to_double());
    }
    if (!(xstep > 0 || xstep < 0)) fail("step must be nonzero");
    if (!std::isfinite(static_cast<double>(xstart)) || !std::isfinite(static_cast<double>(xend))) {
      fail(fmt::format("unsupported range: {} -> {}", static_cast<double>(xstart),
                       static_cast<double>(xend)));
    }
    if (!((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart))) {
      fail("upper bound and larger bound inconsistent with step sign");
    }
    // PyTorch's bound, size_d <= int64's max as a double, lets 2^63 through to an undefined cast.
    if (too_wide || !(size_d >= 0 && fits_integer<std::int64_t>(size_d))) {
      fail("invalid size, possible overflow?");
    }
    auto n = static_cast<std::int64_t>(size_d);
    Tensor out = Tensor::uninitialized({n}, dtype);
    T* p = out.template mutable_data<T>();
    for (std::int64_t i = 0; i < n; ++i) {
      p[i] = static_cast<T>(xstart + static_cast<Acc>(i) * xstep);
    }
    return out;
  });
}
void arange(Stack& s) {
  IValue* a = last(s, 5);
  Tensor out = arange_impl(IValue(std::int64_t{0}), a[0], IValue(std::int64_t{1}), a[1]);
  drop(s, 5);
  s.emplace_back(std::move(out));
}
void arange_start(Stack& s) {
  IValue* a = last(s, 6);
  Tensor out = arange_impl(a[0], a[1], IValue(std::int64_t{1}), a[2]);
  drop(s, 6);
  s.emplace_back(std::move(out));
}
void arange_start_step(Stack& s) {
  IValue* a = last(s, 7);
  Tensor out = arange_impl(a[0], a[1], a[2], a[3]);
  drop(s, 7);
  s.emplace_back(std::move(out));
}

// linspace(start, end, steps, dtype, layout, device, pin_memory) and logspace(start, end,
// steps, base, ...): float32 unless a dtype is given (int arguments too). Both count from
// both ends, as PyTorch 1.13: value i is start + i * step below steps / 2, else
// end - (steps - 1 - i) * step.

// a + b * c rounded twice, never fused into one fma (GCC contracts across expressions where
// the target has fma): the rounding PyTorch's own code gets.
template <typename T>
T add_product_unfused(T a, T b, T c) {
  volatile T product = b * c;
  return a + product;
}

// PyTorch 1.13's linspace_kernel (cpu/RangeFactoriesKernel.cpp, built for AVX2 with fma):
// the ends computed as one fma each, in T for floating dtypes and in double for integral
// ones; a contiguous output goes in blocks of two 32-byte vectors whose lanes are
// Vectorized::arange(base, step), base + lane * step rounded twice, and the rest one by one.
// (With more than one thread PyTorch splits a range past 32768 steps into chunks, each starting
// blocks of its own; here the result is PyTorch's with one thread, the same at every count.)
template <typename T>
void linspace_fill(T* p, T start, T end, std::int64_t steps) {
  using Step = std::conditional_t<std::is_integral_v<T>, double, T>;
  const Step step =
      (static_cast<Step>(end) - static_cast<Step>(start)) / static_cast<Step>(steps - 1);
  const std::int64_t halfway = steps / 2;
  auto value_at = [&](std::int64_t i) -> Step {
    return i < halfway ? std::fma(step, static_cast<Step>(i), static_cast<Step>(start))
                       : std::fma(-step, static_cast<Step>(steps - i - 1), static_cast<Step>(end));
  };
  constexpr std::int64_t lanes = 32 / sizeof(T);
  std::int64_t i = 0;
  for (; i + 2 * lanes <= steps; i += 2 * lanes) {
    for (std::int64_t v = i; v < i + 2 * lanes; v += lanes) {
      const T base = convert<T>(value_at(v));
      for (std::int64_t lane = 0; lane < lanes; ++lane) {
        p[v + lane] =
            convert<T>(add_product_unfused(static_cast<Step>(base), static_cast<Step>(lane), step));
      }
    }
  }
  for (; i < steps; ++i) p[i] = convert<T>(value_at(i));
}

// The one element of `out` set to the Scalar `value` (fill_).
void fill_one(Tensor& out, const IValue& value) {
  dispatch_all(out.dtype(), "fill_", [&](auto tag) {
    using T = decltype(tag);
    *out.template mutable_data<T>() = checked_value<T>(value);
  });
}

// The type of `end - start` for T (int for the integers narrower than int).
template <typename T>
using Difference = decltype(T{} - T{});

void check_steps(std::int64_t steps) {
  if (steps < 0) fail("number of steps must be non-negative");
}

void linspace(Stack& s) {
  IValue* a = last(s, 7);
  const std::int64_t steps = a[2].to_int();
  check_steps(steps);
  const DType dtype = dtype_arg(a[3]).value_or(DType::kFloat32);
  Tensor out = Tensor::uninitialized({steps}, dtype);
  if (steps == 1) {
    fill_one(out, a[0]);
  } else if (steps > 1) {
    if (dtype == DType::kBool) not_implemented("linspace_cpu", dtype);
    dispatch_numeric(dtype, "linspace_cpu", [&](auto tag) {
      using T = decltype(tag);
      linspace_fill<T>(out.template mutable_data<T>(), checked_value<T>(a[0]),
                       checked_value<T>(a[1]), steps);
    });
  }
  drop(s, 7);
  s.emplace_back(std::move(out));
}

// PyTorch 1.13's logspace_out (RangeFactories.cpp, built without fma): the exponents in
// double, from the ends converted to the dtype (their difference taken in it), and
// pow(base, exponent) in double converted to the dtype; one step is pow(base, start).
void logspace(Stack& s) {
  IValue* a = last(s, 8);
  const std::int64_t steps = a[2].to_int();
  check_steps(steps);
  const double base = a[3].to_double();
  const DType dtype = dtype_arg(a[4]).value_or(DType::kFloat32);
  Tensor out = Tensor::uninitialized({steps}, dtype);
  if (steps == 1) {
    fill_one(out, IValue(std::pow(base, a[0].to_double())));
  } else if (steps > 1) {
    if (dtype == DType::kBool) not_implemented("logspace_cpu", dtype);
    dispatch_numeric(dtype, "logspace_cpu", [&](auto tag) {
      using T = decltype(tag);
      const T start = checked_value<T>(a[0]), end = checked_value<T>(a[1]);
      // The difference in T (int for the narrow integers, wrapping for int64), as PyTorch's.
      Difference<T> difference;
      if constexpr (std::is_same_v<T, std::int64_t>) {
        difference = static_cast<std::int64_t>(static_cast<std::uint64_t>(end) -
                                               static_cast<std::uint64_t>(start));
      } else {
        difference = end - start;
      }
      const double step = static_cast<double>(difference) / static_cast<double>(steps - 1);
      const std::int64_t halfway = steps / 2;
      T* p = out.template mutable_data<T>();
      for (std::int64_t i = 0; i < steps; ++i) {
        const double exponent =
            i < halfway
                ? add_product_unfused(static_cast<double>(start), step, static_cast<double>(i))
                : add_product_unfused(static_cast<double>(end), -step,
                                      static_cast<double>(steps - i - 1));
        p[i] = convert<T>(std::pow(base, exponent));
      }
    });
  }
  drop(s, 8);
  s.emplace_back(std::move(out));
}

// broadcast_tensors: every tensor expanded (a view) to the broadcast shape of all.
void broadcast_tensors(Stack& s) {
  IValue list = pop(s);
  Sizes shape;
  try {
    for (const auto& t : list.to_list())
      shape = tensor::broadcast_shapes(shape, t.to_tensor().sizes());
  } catch (const Error& e) {
    fail(e.message());
  }
  IValueList sizes;
  for (auto d : shape) sizes.emplace_back(d);
  IValueList out;
  for (const auto& t : list.to_list()) {
    Stack args{t, IValue::list(sizes), IValue(false)};
    expand(args);
    out.push_back(std::move(args.back()));
  }
  s.push_back(IValue::list(std::move(out)));
}

// _infer_size(int[] a, int[] b) -> int[]: the broadcast shape of two shapes (BCELoss checks
// its weight with it), RuntimeError on a mismatch. PyTorch 1.13's builtin names b "tensor a" in
// that message, so the shapes go in swapped (the broadcast shape is the same).
void infer_size(Stack& s) {
  const Sizes b = int_list_arg(pop(s));
  const Sizes a = int_list_arg(pop(s));
  Sizes shape;
  try {
    shape = tensor::broadcast_shapes(b, a);
  } catch (const Error& e) {
    fail(e.message());
  }
  IValueList out(shape.begin(), shape.end());
  s.push_back(IValue::list(std::move(out)));
}

}  // namespace

void register_shape_ops(OperatorRegistry& r) {
  IValue none;
  IValue zero(std::int64_t{0});
  r.add({"aten::select.int", 3, {}, select});
  r.add({"aten::slice.Tensor", 5, {zero, none, none, IValue(std::int64_t{1})}, slice});
  r.add({"aten::view", 2, {}, view});
  r.add({"aten::reshape", 2, {}, reshape});
  r.add({"aten::unflatten.int", 3, {}, unflatten});
  r.add({"aten::flatten.using_ints", 3, {zero, IValue(std::int64_t{-1})}, flatten});
  r.add({"aten::permute", 2, {}, permute});
  r.add({"aten::transpose.int", 3, {}, transpose});
  r.add({"aten::t", 1, {}, t_op});
  r.add({"aten::unsqueeze", 2, {}, unsqueeze});
  r.add({"aten::squeeze.dim", 2, {}, squeeze_dim});
  r.add({"aten::squeeze", 1, {}, squeeze});
  r.add({"aten::unsqueeze_", 2, {}, unsqueeze_});
  r.add({"aten::squeeze_.dim", 2, {}, squeeze__dim});
  r.add({"aten::squeeze_", 1, {}, squeeze_});
  r.add({"aten::contiguous", 2, {zero}, contiguous});
  r.add({"aten::cat", 2, {zero}, cat});
  r.add({"aten::stack", 2, {zero}, stack});
  r.add({"aten::chunk", 3, {zero}, chunk});
  r.add({"aten::expand", 3, {IValue(false)}, expand});
  r.add({"aten::_infer_size", 2, {}, infer_size});
  r.add({"aten::split.sizes", 3, {zero}, split_sizes});
  r.add({"aten::split_with_sizes", 3, {zero}, split_sizes});  // what split.sizes calls
  r.add({"aten::zeros", 5, {none, none, none, none}, zeros});
  r.add({"aten::full", 6, {none, none, none, none}, full});
  r.add({"aten::ones", 5, {none, none, none, none}, ones});
  r.add({"aten::empty.memory_format", 6, {none, none, none, none, none}, empty});
  r.add({"aten::Int.Tensor", 1, {}, int_tensor});
  r.add({"aten::ScalarImplicit", 1, {}, scalar_implicit});
  r.add({"aten::Float.Tensor", 1, {}, float_tensor});
  r.add({"aten::Bool.Tensor", 1, {}, bool_tensor});
  r.add({"aten::len.Tensor", 1, {}, len_tensor});
  r.add({"aten::arange", 5, {none, none, none, none}, arange});
  r.add({"aten::arange.start", 6, {none, none, none, none}, arange_start});
  r.add({"aten::arange.start_step",
         7,
         {IValue(std::int64_t{1}), none, none, none, none},
         arange_start_step});
  r.add({"aten::linspace", 7, {none, none, none, none}, linspace});
  r.add({"aten::logspace", 8, {IValue(10.0), none, none, none, none}, logspace});
  r.add({"aten::broadcast_tensors", 1, {}, broadcast_tensors});
  r.add({"aten::item", 1, {}, item});
  r.add({"prim::NumToTensor.Scalar", 1, {}, num_to_tensor});
  r.add({"prim::NumToTensor.bool", 1, {}, num_to_tensor});
}

}  // namespace symbolite::ops
