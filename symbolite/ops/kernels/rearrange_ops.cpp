// Copies that move elements to new places: roll (a cyclic shift along dimensions), repeat
// (tiling) and pad
// (constant, reflect, replicate and circular padding of the last dimensions, negative
// constant padding crops), as swin transformers and padding layers use them. Both map each
// output index to a source index and copy bytes, so every dtype works alike.
#include <cstring>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

// Fills `out` (contiguous) element by element: `source(index)` is the flat element offset in
// `in` (contiguous) of the element at output `index`, or -1 for `fill` (one element's bytes).
template <typename Source>
void gather_elements(const Tensor& in, const Tensor& out, const std::uint8_t* fill,
                     Source&& source) {
  const std::size_t esize = in.element_size();
  const std::uint8_t* src = in.raw_data();
  std::uint8_t* dst =
      out.storage().mutable_data() + static_cast<std::size_t>(out.storage_offset()) * esize;
  const Sizes& sizes = out.sizes();
  Sizes index(sizes.size(), 0);
  for (std::int64_t n = 0; n < out.numel(); ++n) {
    std::int64_t from = source(index);
    std::memcpy(dst + static_cast<std::size_t>(n) * esize,
                from < 0 ? fill : src + static_cast<std::size_t>(from) * esize, esize);
    for (std::size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) { return ((a % b) + b) % b; }

// roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor
void roll(Stack& s) {
  IValue dims_v = pop(s), shifts_v = pop(s), self = pop(s);
  Tensor t = self.to_tensor().contiguous();
  Sizes shifts = int_list_arg(shifts_v), dims = int_list_arg(dims_v);
  if (dims.empty() && shifts.size() == 1) {
    // No dims: the flattened tensor rolls, and keeps its shape.
    Tensor out = Tensor::empty(t.sizes(), t.dtype());
    const std::int64_t n = t.numel();
    Sizes strides = tensor::contiguous_strides(t.sizes());
    gather_elements(t, out, nullptr, [&](const Sizes& index) {
      std::int64_t flat = 0;
      for (std::size_t d = 0; d < index.size(); ++d) flat += index[d] * strides[d];
      return n == 0 ? 0 : floor_mod(flat - shifts[0], n);
    });
    s.emplace_back(std::move(out));
    return;
  }
  if (shifts.size() != dims.size()) {
    fail(fmt::format("shifts and dimensions must align. shifts: {}, dims:{}", shifts.size(),
                     dims.size()));
  }
  Sizes shift(static_cast<std::size_t>(t.dim()), 0);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    shift[static_cast<std::size_t>(wrap_dim(dims[i], t.dim()))] += shifts[i];
  }
  Tensor out = Tensor::empty(t.sizes(), t.dtype());
  Sizes strides = tensor::contiguous_strides(t.sizes());
  gather_elements(t, out, nullptr, [&](const Sizes& index) {
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < index.size(); ++d) {
      flat += floor_mod(index[d] - shift[d], t.sizes()[d]) * strides[d];
    }
    return flat;
  });
  s.emplace_back(std::move(out));
}

enum class PadMode { kConstant, kReflect, kReplicate, kCircular };

// pad(Tensor self, int[] pad, str mode="constant", float? value=None) -> Tensor
void pad(Stack& s) {
  IValue value_v = pop(s), mode_v = pop(s), pad_v = pop(s), self = pop(s);
  Tensor t = self.to_tensor().contiguous();
  Sizes pads = int_list_arg(pad_v);
  const std::string& mode_name = mode_v.to_string();
  PadMode mode = PadMode::kConstant;
  if (mode_name == "reflect")
    mode = PadMode::kReflect;
  else if (mode_name == "replicate")
    mode = PadMode::kReplicate;
  else if (mode_name == "circular")
    mode = PadMode::kCircular;
  else if (mode_name != "constant")
    fail(fmt::format("Unrecognised padding mode {}", mode_name));
  if (pads.size() % 2 != 0) fail("Padding length must be divisible by 2");
  if (static_cast<std::int64_t>(pads.size() / 2) > t.dim()) fail("Padding length too large");
  if (mode != PadMode::kConstant && !value_v.is_none()) {
    fail(fmt::format("Padding mode \"{}\" doesn't take in value argument", mode_name));
  }
  const std::size_t ndim = t.sizes().size();
  Sizes before(ndim, 0), sizes = t.sizes();
  for (std::size_t i = 0; i < pads.size() / 2; ++i) {
    std::size_t d = ndim - 1 - i;  // pad[0], pad[1] are the last dimension's
    std::int64_t left = pads[2 * i], right = pads[2 * i + 1];
    const std::int64_t n = t.sizes()[d];
    if (mode == PadMode::kReflect && (left >= n || right >= n)) {
      fail(fmt::format(
          "Argument #4: Padding size should be less than the corresponding input dimension, but "
          "got: padding ({}, {}) at dimension {} of input {}",
          left, right, d, tensor::format_sizes(t.sizes())));
    }
    if (mode == PadMode::kCircular && (left > n || right > n)) {
      fail("Padding value causes wrapping around more than once.");
    }
    before[d] = left;
    sizes[d] = n + left + right;
    if (sizes[d] < 0) {
      fail(fmt::format(
          "The input size {}, plus negative padding {} and {} resulted in a negative output size, "
          "which is invalid. Check dimension {} of your input.",
          n, left, right, d));
    }
  }
  Tensor out = Tensor::empty(sizes, t.dtype());
  // The constant as one element of the tensor's dtype.
  Tensor fill_value = scalar_tensor(value_v.is_none() ? IValue(0.0) : value_v, t.dtype());
  Sizes strides = tensor::contiguous_strides(t.sizes());
  gather_elements(t, out, fill_value.raw_data(), [&](const Sizes& index) {
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < ndim; ++d) {
      const std::int64_t n = t.sizes()[d];
      std::int64_t i = index[d] - before[d];
      if (i < 0 || i >= n) {
        switch (mode) {
          case PadMode::kConstant:
            return std::int64_t{-1};
          case PadMode::kReflect:
            i = i < 0 ? -i : 2 * (n - 1) - i;
            break;
          case PadMode::kReplicate:
            i = i < 0 ? 0 : n - 1;
            break;
          case PadMode::kCircular:
            i = floor_mod(i, n);
            break;
        }
      }
      flat += i * strides[d];
    }
    return flat;
  });
  s.emplace_back(std::move(out));
}

// repeat(Tensor self, SymInt[] repeats) -> Tensor: tiled `repeats` times along each dimension
// (leading repeats add dimensions).
void repeat(Stack& s) {
  IValue repeats_v = pop(s), self = pop(s);
  Tensor t = self.to_tensor().contiguous();
  Sizes repeats = int_list_arg(repeats_v);
  if (static_cast<std::int64_t>(repeats.size()) < t.dim()) {
    fail(
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
        "tensor");
  }
  const std::size_t lead = repeats.size() - t.sizes().size();
  Sizes in_sizes(lead, 1);
  in_sizes.insert(in_sizes.end(), t.sizes().begin(), t.sizes().end());
  Sizes sizes(repeats.size());
  for (std::size_t d = 0; d < repeats.size(); ++d) sizes[d] = in_sizes[d] * repeats[d];
  for (std::int64_t n : sizes) {
    if (n < 0) {
      fail(fmt::format("Trying to create tensor with negative dimension {}: {}", n,
                       tensor::format_sizes(sizes)));
    }
  }
  Tensor out = Tensor::empty(sizes, t.dtype());
  Sizes strides = tensor::contiguous_strides(in_sizes);
  gather_elements(t, out, nullptr, [&](const Sizes& index) {
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < index.size(); ++d) flat += (index[d] % in_sizes[d]) * strides[d];
    return flat;
  });
  s.emplace_back(std::move(out));
}

}  // namespace

void register_rearrange_ops(OperatorRegistry& r) {
  r.add({"aten::repeat", 2, {}, repeat});
  r.add({"aten::roll", 3, {IValue::list({})}, roll});
  r.add({"aten::pad", 4, {IValue::string("constant"), IValue()}, pad});
}

}  // namespace symbolite::ops
