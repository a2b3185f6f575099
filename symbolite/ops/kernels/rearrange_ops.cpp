// Copies that move elements to new places: roll (a cyclic shift along dimensions), flip,
// repeat (tiling), repeat_interleave (each element repeated in place) and pad
// (constant, reflect, replicate and circular padding of the last dimensions, negative
// constant padding crops), as swin transformers and padding layers use them. Each maps every
// dimension's output index to a source index and copies bytes, so every dtype works alike.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/element_runs.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/machine_memory.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

// Element k of the `count` elements of `size` bytes from `to` is the element `step` * k
// elements from `from`: step -1 copies a run backwards (flip), 0 repeats one element (a fill).
// (T: an unsigned integer of the element's size, moved by memcpy, which compiles to loads and
// stores of T. tensor/strided_copy.cpp's gather takes any stride at the tensor layer's -O2;
// here, with the kernels at -O3 and the step known at each call, a flip's copy vectorizes:
// through that one it took twice as long.)
template <typename T>
void elements_by(const std::uint8_t* from, std::int64_t step, std::uint8_t* to,
                 std::int64_t count) {
  constexpr auto size = static_cast<std::int64_t>(sizeof(T));
  for (std::int64_t k = 0; k < count; ++k) {
    T v;
    std::memcpy(&v, from + step * k * size, sizeof(T));
    std::memcpy(to + k * size, &v, sizeof(T));
  }
}
void copy_elements(const std::uint8_t* from, std::int64_t step, std::uint8_t* to,
                   std::int64_t count, std::size_t size) {
  switch (size) {
    case 1:
      return elements_by<std::uint8_t>(from, step, to, count);
    case 2:
      return elements_by<std::uint16_t>(from, step, to, count);
    case 4:
      return elements_by<std::uint32_t>(from, step, to, count);
    case 8:
      return elements_by<std::uint64_t>(from, step, to, count);
    default:
      for (std::int64_t k = 0; k < count; ++k) {
        const auto at = static_cast<std::int64_t>(size) * k;
        std::memcpy(to + at, from + step * at, size);
      }
  }
}

// A run of an output row: output start, source start (-1: fill), length, and whether the
// source runs backwards (flip): output element k of the run is source element src - k.
struct RowRun {
  std::int64_t out, src, len;
  bool backwards;
};

// An output row of 4-byte elements from its runs, `from` its source row (null: a row of
// fill), each run one loop the clones vectorize: a memcpy call per run cost as much as the
// copy on a padded image's rows of a few hundred bytes.
SYMBOLITE_ELEMENT_CLONES void row_of_words(const RowRun* runs, const RowRun* end,
                                           const std::uint32_t* from, std::uint32_t fill,
                                           std::uint32_t* __restrict to) {
  for (const RowRun* run = runs; run != end; ++run) {
    std::uint32_t* __restrict at = to + run->out;
    if (from == nullptr || run->src < 0) {
      for (std::int64_t k = 0; k < run->len; ++k) at[k] = fill;
    } else if (run->backwards) {
      const std::uint32_t* source = from + run->src;
      for (std::int64_t k = 0; k < run->len; ++k) at[k] = source[-k];
    } else {
      const std::uint32_t* __restrict source = from + run->src;
      for (std::int64_t k = 0; k < run->len; ++k) at[k] = source[k];
    }
  }
}

// Fills `out` (contiguous, `out_sizes`) from `in` (contiguous, `in_sizes`, the same rank):
// along each dimension d, output element i comes from input element maps[d][i], or is `fill`
// (one element's bytes) where any maps[d][i] is -1. Roll, repeat and pad all map each
// dimension on its own, so each output row (the last dimension) is a few runs of
// consecutive source elements, copied a run at a time.
void gather_separable(const Tensor& in, const Sizes& in_sizes, const Tensor& out,
                      const Sizes& out_sizes, const std::uint8_t* fill,
                      const std::vector<Sizes>& maps) {
  const std::size_t esize = in.element_size();
  const std::uint8_t* src = in.raw_data();
  std::uint8_t* dst =
      out.storage().mutable_data() + static_cast<std::size_t>(out.storage_offset()) * esize;
  const std::int64_t total = tensor::checked_numel(out_sizes);
  if (total == 0) return;
  if (out_sizes.empty()) {
    std::memcpy(dst, src, esize);
    return;
  }
  const Sizes strides = tensor::contiguous_strides(in_sizes);
  std::vector<RowRun> runs;
  for (std::int64_t j = 0; j < out_sizes.back(); ++j) {
    const std::int64_t from = maps.back()[static_cast<std::size_t>(j)];
    if (!runs.empty()) {
      RowRun& last = runs.back();
      if (last.src < 0 && from < 0) {
        ++last.len;
        continue;
      }
      if (last.src >= 0 && from >= 0) {
        if (!last.backwards && from == last.src + last.len) {
          ++last.len;
          continue;
        }
        if ((last.backwards || last.len == 1) && from == last.src - last.len) {
          last.backwards = true;
          ++last.len;
          continue;
        }
      }
    }
    runs.push_back({j, from, 1, false});
  }
  auto fill_run = [&](std::uint8_t* to, std::int64_t count) {
    copy_elements(fill, 0, to, count, esize);
  };
  const std::size_t outer = out_sizes.size() - 1;
  const std::int64_t width = out_sizes.back();
  // Rows split across threads; each share starts from its first row's index.
  // Each row's source row (-1: a row of fill), from its index in the outer dimensions: the
  // dimensions before the last outer one once per run of it, then that one's map.
  const std::int64_t rows = total / width;
  std::vector<std::int64_t> bases(static_cast<std::size_t>(rows));
  if (outer == 0) {
    bases.assign(bases.size(), 0);
  } else {
    const std::size_t last = outer - 1;
    const Sizes& last_map = maps[last];
    const std::int64_t last_stride = strides[last];
    Sizes index(last, 0);
    for (std::int64_t first = 0; first < rows; first += out_sizes[last]) {
      std::int64_t prefix = 0;
      for (std::size_t d = 0; d < last && prefix >= 0; ++d) {
        const std::int64_t from = maps[d][static_cast<std::size_t>(index[d])];
        prefix = from < 0 ? -1 : prefix + from * strides[d];
      }
      for (std::int64_t j = 0; j < out_sizes[last]; ++j) {
        const std::int64_t from = last_map[static_cast<std::size_t>(j)];
        bases[static_cast<std::size_t>(first + j)] =
            prefix < 0 || from < 0 ? -1 : prefix + from * last_stride;
      }
      for (std::size_t d = last; d-- > 0;) {
        if (++index[d] < out_sizes[d]) break;
        index[d] = 0;
      }
    }
  }
  parallel_for(rows, std::max<std::int64_t>(1, 16384 / width),
               [&, runs_begin = runs.data(), runs_end = runs.data() + runs.size()](
                   std::int64_t first, std::int64_t last) {
                 // (Words read in place where the source is aligned to them: a hostile
                 // file's tensor need not be.)
                 if (esize == sizeof(std::uint32_t) &&
                     reinterpret_cast<std::uintptr_t>(src) % alignof(std::uint32_t) == 0) {
                   std::uint32_t word = 0;
                   if (fill != nullptr) std::memcpy(&word, fill, sizeof(word));
                   const auto* words = reinterpret_cast<const std::uint32_t*>(src);
                   auto* rows_out = reinterpret_cast<std::uint32_t*>(dst);
                   for (std::int64_t row = first; row < last; ++row) {
                     const std::int64_t base = bases[static_cast<std::size_t>(row)];
                     row_of_words(runs_begin, runs_end, base < 0 ? nullptr : words + base, word,
                                  rows_out + row * width);
                   }
                   return;
                 }
                 for (std::int64_t row = first; row < last; ++row) {
                   const std::int64_t base = bases[static_cast<std::size_t>(row)];
                   std::uint8_t* to = dst + static_cast<std::size_t>(row * width) * esize;
                   for (const RowRun* run = runs_begin; run != runs_end; ++run) {
                     std::uint8_t* at = to + static_cast<std::size_t>(run->out) * esize;
                     const std::uint8_t* from =
                         src + static_cast<std::size_t>(base + run->src) * esize;
                     if (base < 0 || run->src < 0) {
                       fill_run(at, run->len);
                     } else if (run->backwards) {
                       copy_elements(from, -1, at, run->len, esize);
                     } else {
                       std::memcpy(at, from, static_cast<std::size_t>(run->len) * esize);
                     }
                   }
                 }
               });
}

// a modulo b in [0, b), b > 0: a cyclic index.
std::int64_t cyclic_index(std::int64_t a, std::int64_t b) { return ((a % b) + b) % b; }

// roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor
void roll(Stack& s) {
  IValue dims_v = pop(s), shifts_v = pop(s), self = pop(s);
  Tensor t = self.to_tensor().contiguous();
  Sizes shifts = int_list_arg(shifts_v), dims = int_list_arg(dims_v);
  if (dims.empty() && shifts.size() == 1) {
    // No dims: the flattened tensor rolls, and keeps its shape.
    Tensor out = Tensor::uninitialized(t.sizes(), t.dtype());
    const std::int64_t n = t.numel();
    Sizes map(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      map[static_cast<std::size_t>(i)] = cyclic_index(i - shifts[0] % n, n);
    gather_separable(t, {n}, out, {n}, nullptr, {map});
    s.emplace_back(std::move(out));
    return;
  }
  if (shifts.size() != dims.size()) {
    fail(fmt::format("shifts and dimensions must align. shifts: {}, dims:{}", shifts.size(),
                     dims.size()));
  }
  Sizes shift(static_cast<std::size_t>(t.dim()), 0);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    // Each shift modulo its dimension first: two of 2^62 on one dimension cannot overflow.
    const auto d = static_cast<std::size_t>(wrap_dim(dims[i], t.dim()));
    if (t.sizes()[d] > 0) shift[d] = (shift[d] + shifts[i] % t.sizes()[d]) % t.sizes()[d];
  }
  Tensor out = Tensor::uninitialized(t.sizes(), t.dtype());
  std::vector<Sizes> maps(t.sizes().size());
  for (std::size_t d = 0; d < maps.size(); ++d) {
    const std::int64_t n = t.sizes()[d];
    for (std::int64_t i = 0; i < n; ++i) maps[d].push_back(cyclic_index(i - shift[d], n));
  }
  gather_separable(t, t.sizes(), out, t.sizes(), nullptr, maps);
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
  Tensor out = Tensor::uninitialized(sizes, t.dtype());
  // The constant as one element of the tensor's dtype.
  Tensor fill_value = checked_scalar_tensor(value_v.is_none() ? IValue(0.0) : value_v, t.dtype());
  std::vector<Sizes> maps(ndim);
  for (std::size_t d = 0; d < ndim; ++d) {
    const std::int64_t n = t.sizes()[d];
    for (std::int64_t o = 0; o < sizes[d]; ++o) {
      std::int64_t i = o - before[d];
      if (i < 0 || i >= n) {
        switch (mode) {
          case PadMode::kConstant:
            i = -1;
            break;
          case PadMode::kReflect:
            i = i < 0 ? -i : 2 * (n - 1) - i;
            break;
          case PadMode::kReplicate:
            i = i < 0 ? 0 : n - 1;
            break;
          case PadMode::kCircular:
            i = cyclic_index(i, n);
            break;
        }
      }
      maps[d].push_back(i);
    }
  }
  gather_separable(t, t.sizes(), out, sizes, fill_value.raw_data(), maps);
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
  for (std::size_t d = 0; d < repeats.size(); ++d) {
    if (__builtin_mul_overflow(in_sizes[d], repeats[d], &sizes[d])) {
      fail(fmt::format("repeat: a dimension of {} repeated {} times overflows int64", in_sizes[d],
                       repeats[d]));
    }
  }
  for (std::int64_t n : sizes) {
    if (n < 0) {
      fail(fmt::format("Trying to create tensor with negative dimension {}: {}", n,
                       tensor::format_sizes(sizes)));
    }
  }
  Tensor out = Tensor::uninitialized(sizes, t.dtype());
  std::vector<Sizes> maps(sizes.size());
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    for (std::int64_t o = 0; o < sizes[d]; ++o) maps[d].push_back(o % in_sizes[d]);
  }
  gather_separable(t, in_sizes, out, sizes, nullptr, maps);
  s.emplace_back(std::move(out));
}

// flip(Tensor self, int[] dims) -> Tensor: the order along each of dims reversed.
void flip(Stack& s) {
  IValue dims_v = pop(s), self = pop(s);
  Tensor t = self.to_tensor().contiguous();
  const Sizes dims = int_list_arg(dims_v);
  // dim_mask reads an empty list as every dimension; flip reverses none then.
  const std::vector<bool> flipped =
      dims.empty() ? std::vector<bool>(t.sizes().size(), false) : dim_mask(dims, t.dim());
  Tensor out = Tensor::uninitialized(t.sizes(), t.dtype());
  std::vector<Sizes> maps(t.sizes().size());
  for (std::size_t d = 0; d < maps.size(); ++d) {
    const std::int64_t n = t.sizes()[d];
    for (std::int64_t i = 0; i < n; ++i) maps[d].push_back(flipped[d] ? n - 1 - i : i);
  }
  gather_separable(t, t.sizes(), out, t.sizes(), nullptr, maps);
  s.emplace_back(std::move(out));
}

// Element i of a dimension repeated repeats[i] times (one count for all when it has one), as
// an index map; `op` names the operator in messages.
Sizes interleaved(std::int64_t size, const Sizes& repeats, const IValue& output_size) {
  if (repeats.size() != 1 && static_cast<std::int64_t>(repeats.size()) != size) {
    fail("repeats must have the same size as input along dim");
  }
  // The output's length first: a count no memory holds fails before the map grows to it.
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < size; ++i) {
    const std::int64_t n = repeats[repeats.size() == 1 ? 0 : static_cast<std::size_t>(i)];
    if (n < 0) fail("repeats can not be negative");
    if (__builtin_add_overflow(total, n, &total) ||
        !fits_in_memory(static_cast<std::uint64_t>(total), sizeof(std::int64_t))) {
      fail("repeat_interleave: the repeated length needs more memory than this machine has");
    }
  }
  Sizes map;
  map.reserve(static_cast<std::size_t>(total));
  for (std::int64_t i = 0; i < size; ++i) {
    const std::int64_t n = repeats[repeats.size() == 1 ? 0 : static_cast<std::size_t>(i)];
    map.insert(map.end(), static_cast<std::size_t>(n), i);
  }
  if (!output_size.is_none() && output_size.to_int() != static_cast<std::int64_t>(map.size())) {
    fail("allocated size does not match required size");
  }
  return map;
}

// repeats as a list: a 0-dim or 1-dim int64 tensor.
Sizes repeat_counts(const Tensor& repeats) {
  if (repeats.dim() > 1) fail("repeats must be 0-dim or 1-dim tensor");
  if (repeats.dtype() != tensor::DType::kInt64 && repeats.dtype() != tensor::DType::kInt32) {
    fail("repeats has to be Long or Int tensor");
  }
  const Tensor r = to_dtype(repeats, tensor::DType::kInt64);
  const std::int64_t* p = r.data<std::int64_t>();
  return Sizes(p, p + r.numel());
}

// self's elements along dim (the flattened tensor when dim is None) each repeated.
Tensor repeat_interleave_impl(const Tensor& self, const Sizes& repeats, const IValue& dim_v,
                              const IValue& output_size) {
  Tensor t = self.contiguous();
  if (dim_v.is_none()) {
    t = Tensor::from_storage(t.storage(), t.dtype(), {t.numel()}, {1}, t.storage_offset());
  }
  const std::int64_t dim = dim_v.is_none() ? 0 : wrap_dim(dim_v.to_int(), t.dim());
  Sizes in_sizes = t.sizes();
  if (in_sizes.empty()) in_sizes.push_back(1);  // a 0-dim tensor repeats as one element
  std::vector<Sizes> maps(in_sizes.size());
  for (std::size_t d = 0; d < maps.size(); ++d) {
    if (static_cast<std::int64_t>(d) == dim) {
      maps[d] = interleaved(in_sizes[d], repeats, output_size);
    } else {
      for (std::int64_t i = 0; i < in_sizes[d]; ++i) maps[d].push_back(i);
    }
  }
  Sizes sizes = in_sizes;
  sizes[static_cast<std::size_t>(dim)] =
      static_cast<std::int64_t>(maps[static_cast<std::size_t>(dim)].size());
  Tensor out = Tensor::uninitialized(sizes, t.dtype());
  gather_separable(t, in_sizes, out, sizes, nullptr, maps);
  return out;
}

// repeat_interleave.self_int(self, repeats, dim=None, *, output_size=None)
void repeat_interleave_int(Stack& s) {
  IValue output_size = pop(s), dim = pop(s), repeats = pop(s), self = pop(s);
  s.emplace_back(repeat_interleave_impl(self.to_tensor(), {repeats.to_int()}, dim, output_size));
}

// repeat_interleave.self_Tensor(self, repeats, dim=None, *, output_size=None)
void repeat_interleave_tensor(Stack& s) {
  IValue output_size = pop(s), dim = pop(s), repeats = pop(s), self = pop(s);
  s.emplace_back(repeat_interleave_impl(self.to_tensor(), repeat_counts(repeats.to_tensor()), dim,
                                        output_size));
}

// repeat_interleave.Tensor(repeats, *, output_size=None): index i repeats[i] times.
void repeat_interleave_counts(Stack& s) {
  IValue output_size = pop(s), repeats = pop(s);
  const Tensor& r = repeats.to_tensor();
  if (r.dim() != 1) fail("repeat_interleave only accept 1D vector as repeat");
  const Sizes map = interleaved(r.numel(), repeat_counts(r), output_size);
  Tensor out =
      Tensor::uninitialized({static_cast<std::int64_t>(map.size())}, tensor::DType::kInt64);
  std::copy(map.begin(), map.end(), out.mutable_data<std::int64_t>());
  s.emplace_back(std::move(out));
}

}  // namespace

void register_rearrange_ops(OperatorRegistry& r) {
  const IValue none;
  r.add({"aten::flip", 2, {}, flip});
  r.add({"aten::repeat_interleave.self_int", 4, {none, none}, repeat_interleave_int});
  r.add({"aten::repeat_interleave.self_Tensor", 4, {none, none}, repeat_interleave_tensor});
  r.add({"aten::repeat_interleave.Tensor", 2, {none}, repeat_interleave_counts});
  r.add({"aten::repeat", 2, {}, repeat});
  r.add({"aten::roll", 3, {IValue::list({})}, roll});
  r.add({"aten::pad", 4, {IValue::string("constant"), IValue()}, pad});
}

}  // namespace symbolite::ops
