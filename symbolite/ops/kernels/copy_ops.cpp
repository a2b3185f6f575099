// New tensors laid out like an existing one: clone, to.dtype (a copy when the dtype changes),
// zeros_like and new_zeros; and copy_, which writes one tensor into another. With
// memory_format None (preserve), PyTorch 1.13 keeps a dense input's strides (a transposed
// input gives a transposed result) and gives any other input dense strides in the same
// dimension order (at::infer_dense_strides); later views of the result (`.view` succeeds or
// fails) depend on that, so symbolite does the same.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

// c10::MemoryFormat codes as TorchScript passes them.
constexpr std::int64_t kContiguousFormat = 0;
constexpr std::int64_t kPreserveFormat = 1;
constexpr std::int64_t kChannelsLast = 2;
constexpr std::int64_t kChannelsLast3d = 3;

// at::infer_dense_strides: dense strides keeping the order of `t`'s strides (an insertion
// sort from the last dimension, as TensorIterator orders them; stride-0 dimensions stay put).
Sizes infer_dense_strides(const Tensor& t) {
  const Sizes& sizes = t.sizes();
  const Sizes& strides = t.strides();
  std::size_t n = sizes.size();
  if (n == 0) return {};
  if (n == 1) return {1};
  std::vector<std::size_t> perm(n);
  std::iota(perm.rbegin(), perm.rend(), 0);
  auto should_swap = [&](std::size_t d0, std::size_t d1) {
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] < strides[d1]) return -1;
    if (strides[d0] > strides[d1]) return 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (std::size_t i = 1; i < n; ++i) {
    std::size_t d1 = i;
    for (std::size_t j = 1; j <= i; ++j) {
      std::size_t d0 = i - j;
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  Sizes out(n);
  std::int64_t stride = 1;
  for (std::size_t d : perm) {
    out[d] = stride;
    if (sizes[d] > 1) stride *= sizes[d];
  }
  return out;
}

// Channels-last strides (C innermost) of a rank-4 or rank-5 shape.
Sizes channels_last_strides(const Sizes& sizes, std::size_t rank, std::string_view name) {
  if (sizes.size() != rank) {
    fail(fmt::format("required rank {} tensor to use {} format", rank, name));
  }
  Sizes strides(rank);
  std::int64_t stride = 1;
  strides[1] = stride;
  stride *= std::max<std::int64_t>(sizes[1], 1);
  for (std::size_t d = rank - 1; d >= 2; --d) {
    strides[d] = stride;
    stride *= std::max<std::int64_t>(sizes[d], 1);
  }
  strides[0] = stride;
  return strides;
}

// The strides at::empty_like gives a tensor like `t` for `memory_format` (None: preserve).
Sizes strides_like(const Tensor& t, const IValue& memory_format) {
  std::int64_t format = memory_format.is_none() ? kPreserveFormat : memory_format.to_int();
  switch (format) {
    case kPreserveFormat:
      return is_non_overlapping_and_dense(t) ? t.strides() : infer_dense_strides(t);
    case kContiguousFormat:
      return tensor::contiguous_strides(t.sizes());
    case kChannelsLast:
      return channels_last_strides(t.sizes(), 4, "channels_last");
    case kChannelsLast3d:
      return channels_last_strides(t.sizes(), 5, "channels_last_3d");
    default:
      fail(fmt::format("unknown memory format {}", format));
  }
}

// A new tensor of `t`'s sizes and `dtype` with the strides of `memory_format`, zero-filled
// or for the caller to fill.
Tensor empty_like(const Tensor& t, DType dtype, const IValue& memory_format, bool zeroed) {
  Sizes strides = strides_like(t, memory_format);
  Tensor dense =
      zeroed ? Tensor::empty({t.numel()}, dtype) : Tensor::uninitialized({t.numel()}, dtype);
  return Tensor::from_storage(dense.storage(), dtype, t.sizes(), std::move(strides), 0);
}

// A copy of `t`'s values as `dtype`, laid out as empty_like would.
Tensor copy_like(const Tensor& t, DType dtype, const IValue& memory_format) {
  Tensor out = empty_like(t, dtype, memory_format, false);
  copy_into(out, t);
  return out;
}

// clone(Tensor self, *, MemoryFormat? memory_format=None)
void clone(Stack& s) {
  IValue memory_format = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  s.emplace_back(copy_like(t, t.dtype(), memory_format));
}

// to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False,
// MemoryFormat? memory_format=None): self itself (an alias) when nothing would change.
void to_dtype_op(Stack& s) {
  IValue memory_format = pop(s), copy = pop(s), non_blocking = pop(s), dtype_v = pop(s),
         self = pop(s);
  (void)non_blocking;  // CPU only: every copy is synchronous
  const Tensor& t = self.to_tensor();
  DType dtype = required_dtype_arg(dtype_v);
  // PyTorch aliases when the requested format is preserve or the one it suggests for self,
  // which is contiguous for every layout but channels-last ones.
  bool same_layout = memory_format.is_none() || memory_format.to_int() == kPreserveFormat ||
                     memory_format.to_int() == kContiguousFormat;
  if (dtype == t.dtype() && !copy.to_bool() && same_layout) {
    s.push_back(self);
    return;
  }
  s.emplace_back(copy_like(t, dtype, memory_format));
}

// zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device?
// device=None, bool? pin_memory=None, MemoryFormat? memory_format=None)
void zeros_like(Stack& s) {
  IValue* args = last(s, 6);
  Tensor t = args[0].to_tensor();
  DType dtype = dtype_arg(args[1]).value_or(t.dtype());
  IValue memory_format = args[5];
  drop(s, 6);
  s.emplace_back(empty_like(t, dtype, memory_format, true));
}

// new_zeros(Tensor self, int[] size, *, ScalarType? dtype=None, Layout? layout=None,
// Device? device=None, bool? pin_memory=None): zeros of self's dtype unless told otherwise.
void new_zeros(Stack& s) {
  IValue* args = last(s, 6);
  const Tensor& t = args[0].to_tensor();
  Sizes size = int_list_arg(args[1]);
  DType dtype = dtype_arg(args[2]).value_or(t.dtype());
  drop(s, 6);
  for (std::int64_t n : size) {
    if (n < 0) {
      fail(fmt::format("Trying to create tensor with negative dimension {}: {}", n,
                       tensor::format_sizes(size)));
    }
  }
  s.emplace_back(Tensor::empty(size, dtype));
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False): src broadcast to self's shape
// and converted to its dtype (any dtype converts, unlike the arithmetic in-place forms).
void copy_(Stack& s) {
  IValue non_blocking = pop(s), src_v = pop(s), self_v = pop(s);
  (void)non_blocking;
  const Tensor& self = self_v.to_tensor();
  const Tensor& src = src_v.to_tensor();
  Sizes shape = tensor::broadcast_shapes(self.sizes(), src.sizes());
  if (shape != self.sizes()) {
    fail(fmt::format("output with shape {} doesn't match the broadcast shape {}",
                     tensor::format_sizes(self.sizes()), tensor::format_sizes(shape)));
  }
  check_no_internal_overlap(self);
  Tensor expanded =
      Tensor::from_storage(src.storage(), src.dtype(), self.sizes(),
                           broadcast_strides(src, self.sizes()), src.storage_offset());
  if (self.storage().is_view()) {
    // A read-only view of the model file: copy-on-write, as assign_in_place does.
    s.emplace_back(to_dtype(expanded, self.dtype()));
    return;
  }
  copy_into(self, expanded);
  s.push_back(self_v);
}

}  // namespace

void register_copy_ops(OperatorRegistry& r) {
  IValue none;
  IValue no(false);
  r.add({"aten::clone", 2, {none}, clone});
  r.add({"aten::to.dtype", 5, {no, no, none}, to_dtype_op});
  r.add({"aten::zeros_like", 6, {none, none, none, none, none}, zeros_like});
  r.add({"aten::new_zeros", 6, {none, none, none, none}, new_zeros});
  r.add({"aten::copy_", 3, {no}, copy_});
}

}  // namespace symbolite::ops
