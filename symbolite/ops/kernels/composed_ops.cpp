// Operators that are other operators with their arguments rearranged: the `*_like` and `new_*`
// factories, the `*_as` conversions, axis moves (swapaxes, movedim, numpy_T), narrow, clip,
// square, tile, outer, masked_select, addcmul / addcdiv, and the in-place one-sided
// clamps. Each checks what PyTorch checks before it composes (with PyTorch's message) and runs
// the operators PyTorch's own composite runs, so results are theirs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/cpu/element_runs.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/machine_memory.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// Pops the operator's `n` arguments and pushes what `op` gives on the same arguments: for the
// operators that are another one's other name.
void rerun_as(Stack& s, std::size_t n, const char* op) {
  IValue* a = last(s, n);
  std::vector<IValue> args(a, a + n);
  drop(s, n);
  s.push_back(run_op(op, std::move(args)));
}

// ones_like(self, *, dtype, layout, device, pin_memory, memory_format): full_like with 1.
void ones_like(Stack& s) {
  IValue* a = last(s, 6);
  IValue self = a[0], dtype = a[1], layout = a[2], device = a[3], pin = a[4], format = a[5];
  drop(s, 6);
  s.push_back(run_op("aten::full_like",
                     {self, IValue(std::int64_t{1}), dtype, layout, device, pin, format}));
}

// empty_like: symbolite's empty tensors are zeros (zeros_like).
void empty_like(Stack& s) { rerun_as(s, 6, "aten::zeros_like"); }

// new_full(self, size, fill_value, *, dtype, layout, device, pin_memory): full of self's dtype
// unless told otherwise.
void new_full(Stack& s) {
  IValue* a = last(s, 7);
  const Tensor self = a[0].to_tensor();
  IValue size = a[1], value = a[2], dtype = a[3], layout = a[4], device = a[5], pin = a[6];
  drop(s, 7);
  if (dtype.is_none()) dtype = dtype_value(self.dtype());
  s.push_back(run_op("aten::full", {size, value, dtype, layout, device, pin}));
}

// new_ones(self, size, *, dtype, layout, device, pin_memory)
void new_ones(Stack& s) {
  IValue* a = last(s, 6);
  const Tensor self = a[0].to_tensor();
  IValue size = a[1], dtype = a[2], layout = a[3], device = a[4], pin = a[5];
  drop(s, 6);
  if (dtype.is_none()) dtype = dtype_value(self.dtype());
  s.push_back(run_op("aten::full", {size, IValue(std::int64_t{1}), dtype, layout, device, pin}));
}

// new_empty: zeros, as new_zeros.
void new_empty(Stack& s) { rerun_as(s, 6, "aten::new_zeros"); }

// type_as(self, other): self.to(other's dtype), self itself when it already is.
void type_as(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.push_back(run_op("aten::to.dtype", {self, dtype_value(other.to_tensor().dtype())}));
}

void view_as_op(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.push_back(run_op("aten::view", {self, int_list_value(other.to_tensor().sizes())}));
}

void reshape_as(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.push_back(run_op("aten::reshape", {self, int_list_value(other.to_tensor().sizes())}));
}

// x.T: the dimensions reversed.
void numpy_t(Stack& s) {
  IValue self = pop(s);
  Ints dims(static_cast<std::size_t>(self.to_tensor().dim()));
  std::iota(dims.rbegin(), dims.rend(), 0);
  s.push_back(run_op("aten::permute", {self, int_list_value(dims)}));
}

void swapaxes(Stack& s) { rerun_as(s, 3, "aten::transpose.int"); }

// movedim(self, source, destination): each source dimension moves to its destination, the
// others keep their order in the places left.
Ints movedim_permutation(std::int64_t ndim, const Ints& source, const Ints& destination) {
  if (source.size() != destination.size()) {
    fail(
        fmt::format("movedim: Invalid source or destination dims: source ([{}] dims) should "
                    "contain the same number of dims as destination ([{}] dims)",
                    fmt::join(source, ", "), fmt::join(destination, ", ")));
  }
  Ints src, dst;
  for (std::int64_t d : source) src.push_back(wrap_dim(d, ndim));
  for (std::int64_t d : destination) dst.push_back(wrap_dim(d, ndim));
  for (const Ints* list : {&src, &dst}) {
    Ints sorted = *list;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      fail(fmt::format("movedim: repeated dim in `{}` ([{}])",
                       list == &src ? "source" : "destination",
                       fmt::join(list == &src ? source : destination, ", ")));
    }
  }
  const auto n = static_cast<std::size_t>(std::max<std::int64_t>(ndim, 0));
  Ints order(n, -1);
  std::vector<bool> moved(n, false);
  for (std::size_t i = 0; i < src.size(); ++i) {
    order[static_cast<std::size_t>(dst[i])] = src[i];
    moved[static_cast<std::size_t>(src[i])] = true;
  }
  std::size_t next = 0;
  for (std::size_t at = 0; at < n; ++at) {
    if (order[at] != -1) continue;
    while (moved[next]) ++next;
    order[at] = static_cast<std::int64_t>(next++);
  }
  return order;
}

void movedim_intlist(Stack& s) {
  IValue destination = pop(s), source = pop(s), self = pop(s);
  const Ints order =
      movedim_permutation(self.to_tensor().dim(), int_list_arg(source), int_list_arg(destination));
  s.push_back(run_op("aten::permute", {self, int_list_value(order)}));
}

void movedim_int(Stack& s) {
  IValue destination = pop(s), source = pop(s), self = pop(s);
  const Ints order =
      movedim_permutation(self.to_tensor().dim(), {source.to_int()}, {destination.to_int()});
  s.push_back(run_op("aten::permute", {self, int_list_value(order)}));
}

// narrow(self, dim, start, length): the slice [start, start + length) of dim, a view.
IValue narrow_impl(const IValue& self, std::int64_t dim, std::int64_t start, std::int64_t length) {
  const Tensor& t = self.to_tensor();
  if (t.dim() == 0) fail("narrow() cannot be applied to a 0-dim tensor.");
  const std::int64_t d = wrap_dim(dim, t.dim());
  const std::int64_t size = t.sizes()[static_cast<std::size_t>(d)];
  // start == size is an empty slice at the end; any other start wraps as a dimension would.
  if (start != size) start = wrap_dim(start, size);
  if (length < 0 || start > size - length) {
    fail(fmt::format("start ({}) + length ({}) exceeds dimension size ({}).", start, length, size));
  }
  return run_op("aten::slice.Tensor",
                {self, IValue(d), IValue(start), IValue(start + length), IValue(std::int64_t{1})});
}

void narrow(Stack& s) {
  IValue length = pop(s), start = pop(s), dim = pop(s), self = pop(s);
  s.push_back(narrow_impl(self, dim.to_int(), start.to_int(), length.to_int()));
}

// narrow.Tensor: start is a 0-dim integer tensor.
void narrow_tensor(Stack& s) {
  IValue length = pop(s), start = pop(s), dim = pop(s), self = pop(s);
  const Tensor& st = start.to_tensor();
  if (st.dim() != 0 || is_floating(st.dtype()) || st.dtype() == DType::kBool) {
    fail("start must be an 0-dim integral Tensor.");
  }
  const std::int64_t at = to_dtype(st, DType::kInt64).data<std::int64_t>()[0];
  s.push_back(narrow_impl(self, dim.to_int(), at, length.to_int()));
}

// clip / clip_: clamp's other name.
void clip(Stack& s) { rerun_as(s, 3, "aten::clamp"); }
void clip_(Stack& s) { rerun_as(s, 3, "aten::clamp_"); }
void clamp_min_(Stack& s) {
  IValue lo = pop(s), self = pop(s);
  s.push_back(run_op("aten::clamp_", {self, lo, IValue()}));
}
void clamp_max_(Stack& s) {
  IValue hi = pop(s), self = pop(s);
  s.push_back(run_op("aten::clamp_", {self, IValue(), hi}));
}

// square(self): pow(self, 2); bool squares as int64, as PyTorch promotes it.
void square(Stack& s) {
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  IValue base = t.dtype() == DType::kBool ? IValue(to_dtype(t, DType::kInt64)) : self;
  s.push_back(run_op("aten::pow.Tensor_Scalar", {base, IValue(std::int64_t{2})}));
}

// tile(self, dims): repeat, with dims padded by leading 1s to self's rank.
void tile(Stack& s) {
  IValue dims_v = pop(s), self = pop(s);
  Ints dims = int_list_arg(dims_v);
  const auto rank = static_cast<std::size_t>(self.to_tensor().dim());
  if (dims.size() < rank) dims.insert(dims.begin(), rank - dims.size(), 1);
  s.push_back(run_op("aten::repeat", {self, int_list_value(dims)}));
}

void require_1d(const Tensor& t, const char* op, const char* what) {
  if (t.dim() != 1) {
    fail(fmt::format("{}: Expected 1-D argument {}, but got {}-D", op, what, t.dim()));
  }
}

// outer(self, vec2): self as a column times vec2.
void outer(Stack& s) {
  IValue vec2 = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  require_1d(a, "outer", "self");
  require_1d(vec2.to_tensor(), "outer", "vec2");
  IValue column = run_op("aten::reshape", {self, int_list_value({a.numel(), 1})});
  s.push_back(run_op("aten::mul.Tensor", {column, vec2}));
}

// masked_select(self, mask): the elements of self (both broadcast) where mask is true, as a
// 1-D tensor in row-major order. A uint8 mask of 0s and 1s still counts, as PyTorch 1.13
// (deprecated) lets it.
void masked_select(Stack& s) {
  IValue mask_v = pop(s), self_v = pop(s);
  const Tensor& given = mask_v.to_tensor();
  if (given.dtype() != DType::kBool && given.dtype() != DType::kUInt8) {
    fail("masked_select: expected BoolTensor or ByteTensor for mask");
  }
  if (given.dtype() == DType::kUInt8) {
    const Tensor bytes = given.contiguous();
    const std::uint8_t* p = bytes.data<std::uint8_t>();
    if (std::any_of(p, p + bytes.numel(), [](std::uint8_t v) { return v > 1; })) {
      fail("Mask tensor can take 0 and 1 values only");
    }
    mask_v = IValue(to_dtype(given, DType::kBool));
  }
  const Tensor& mask = mask_v.to_tensor();
  const Ints shape = tensor::broadcast_shapes(self_v.to_tensor().sizes(), mask.sizes());
  IValue self = run_op("aten::expand", {self_v, int_list_value(shape)});
  IValue expanded_mask = run_op("aten::expand", {mask_v, int_list_value(shape)});
  s.push_back(run_op("aten::index.Tensor", {self, IValue::list({expanded_mask})}));
}

// addcmul / addcdiv of three contiguous float tensors of one shape and dtype and a number
// `value`, in one pass: out[i] = op(v, self[i], t1[i], t2[i]) with v the value in their dtype;
// nullopt for anything else.
template <typename Op>
std::optional<Tensor> in_one_pass(const IValue& self, const IValue& t1, const IValue& t2,
                                  const IValue& value, const char* kernel, Op op) {
  const Tensor& x = self.to_tensor();
  const Tensor& a = t1.to_tensor();
  const Tensor& b = t2.to_tensor();
  const bool one_pass =
      is_floating(x.dtype()) && a.dtype() == x.dtype() && b.dtype() == x.dtype() &&
      a.sizes() == x.sizes() && b.sizes() == x.sizes() && x.is_contiguous() && a.is_contiguous() &&
      b.is_contiguous() && (value.is(IValue::Kind::kDouble) || value.is(IValue::Kind::kInt));
  if (!one_pass) return std::nullopt;
  return dispatch_floating(x.dtype(), kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    const T v = checked_value<T>(value);
    Tensor out = Tensor::uninitialized(x.sizes(), x.dtype());
    const T* px = x.template data<T>();
    const T* pa = a.template data<T>();
    const T* pb = b.template data<T>();
    T* dst = out.template mutable_data<T>();
    parallel_for(out.numel(), kElementsPerThread, [&](std::int64_t begin, std::int64_t end) {
      cpu::zip3_run(px + begin, pa + begin, pb + begin, dst + begin, end - begin,
                    [v, op](T self_v, T a_v, T b_v) { return op(v, self_v, a_v, b_v); });
    });
    return out;
  });
}

// addcmul(self, tensor1, tensor2, *, value=1): self + value * tensor1 * tensor2; in one pass
// (in_one_pass) as PyTorch's CPU kernel rounds it: (value * t1) * t2 + self in one fused
// multiply-add (its AVX2 build contracts them); anything else as a product, then a sum.
void addcmul(Stack& s) {
  IValue value = pop(s), t2 = pop(s), t1 = pop(s), self = pop(s);
  if (auto out =
          in_one_pass(self, t1, t2, value, "addcmul_cpu_out",
                      [](auto v, auto x, auto a, auto b) { return std::fma(v * a, b, x); })) {
    s.emplace_back(std::move(*out));
    return;
  }
  IValue product = run_op("aten::mul.Tensor", {t1, t2});
  // The value as PyTorch's kernel takes it, in the result's type: an integer result truncates
  // a float value (add refuses a float alpha for integers).
  IValue alpha = value;
  const DType common = ResultType().operand(self).operand(product).result();
  if (common != DType::kBool && !is_floating(common)) {
    dispatch_numeric(common, "addcmul_cpu_out", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T>) {
        alpha = IValue(static_cast<std::int64_t>(checked_value<T>(value)));
      }
    });
  }
  s.push_back(run_op("aten::add.Tensor", {self, product, alpha}));
}

// addcdiv(self, tensor1, tensor2, *, value=1): self + value * tensor1 / tensor2, floating only;
// in one pass as PyTorch rounds it, (value * t1) / t2 + self; anything else as a quotient,
// then a sum.
void addcdiv(Stack& s) {
  IValue value = pop(s), t2 = pop(s), t1 = pop(s), self = pop(s);
  if (!is_floating(t1.to_tensor().dtype()) && !is_floating(t2.to_tensor().dtype())) {
    fail(
        "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
        "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
        "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
        "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
        "addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
        "tensor2), for all dtypes.");
  }
  if (auto out = in_one_pass(self, t1, t2, value, "addcdiv_cpu_out",
                             [](auto v, auto x, auto a, auto b) { return x + v * a / b; })) {
    s.emplace_back(std::move(*out));
    return;
  }
  IValue quotient = run_op("aten::div.Tensor", {t1, t2});
  s.push_back(run_op("aten::add.Tensor", {self, quotient, value}));
}

// atleast_1d / 2d / 3d: self with leading (and, for 3d of a 2-D self, trailing) size-1
// dimensions, as numpy's.
IValue at_least(const IValue& self, std::int64_t rank) {
  const Tensor& t = self.to_tensor();
  if (t.dim() >= rank) return self;
  Ints sizes = t.sizes();
  if (rank == 3 && t.dim() == 2) {
    sizes.push_back(1);
  } else if (rank == 3 && t.dim() == 1) {
    sizes = {1, sizes[0], 1};
  } else {
    sizes.insert(sizes.begin(), static_cast<std::size_t>(rank - t.dim()), 1);
  }
  return run_op("aten::reshape", {self, int_list_value(sizes)});
}
template <std::int64_t kRank>
void atleast(Stack& s) {
  IValue self = pop(s);
  s.push_back(at_least(self, kRank));
}

// hstack / vstack / dstack / column_stack: cat after making every tensor at least 1-, 2- or
// 3-D (column_stack: 0-D and 1-D tensors as columns).
IValue stacked(const IValue& tensors, std::int64_t rank, bool columns, const char* op) {
  IValueList items;
  for (const Tensor& t : tensor_list_arg(tensors)) {
    if (columns && t.dim() <= 1) {
      items.push_back(run_op("aten::reshape", {IValue(t), int_list_value({t.numel(), 1})}));
    } else {
      items.push_back(at_least(IValue(t), rank));
    }
  }
  if (items.empty()) fail(fmt::format("{} expects a non-empty TensorList", op));
  std::int64_t dim = rank == 1 ? 0 : rank == 2 ? 0 : 2;
  if (columns) dim = 1;
  if (rank == 1 && !columns && items.front().to_tensor().dim() > 1) dim = 1;  // hstack
  return run_op("aten::cat", {IValue::list(std::move(items)), IValue(dim)});
}
void hstack(Stack& s) { s.push_back(stacked(pop(s), 1, false, "hstack")); }
void vstack(Stack& s) { s.push_back(stacked(pop(s), 2, false, "vstack")); }
void dstack(Stack& s) { s.push_back(stacked(pop(s), 3, false, "dstack")); }
void column_stack(Stack& s) { s.push_back(stacked(pop(s), 2, true, "column_stack")); }

void broadcast_to(Stack& s) { rerun_as(s, 2, "aten::expand"); }

// tensor_split.sections / .indices: views of dim cut into `sections` nearly equal parts (the
// first size % sections one longer) or at `indices`.
IValue split_at(const IValue& self, const Ints& cuts, std::int64_t dim_arg) {
  const Tensor& t = self.to_tensor();
  const std::int64_t dim = wrap_dim(dim_arg, t.dim());
  const std::int64_t size = t.sizes()[static_cast<std::size_t>(dim)];
  // Each part is slice(start, end) with slice's wrapping of negative bounds; the next part
  // starts at this one's end as given (PyTorch's loop), so [4, -3] cuts 5 into 4, 0 and 3.
  auto wrap = [size](std::int64_t v) {
    return std::clamp<std::int64_t>(v < 0 ? v + size : v, 0, size);
  };
  IValueList parts;
  std::int64_t start = 0;
  for (std::size_t i = 0; i <= cuts.size(); ++i) {
    const std::int64_t raw_end = i < cuts.size() ? cuts[i] : size;
    const std::int64_t from = wrap(start), end = std::max(from, wrap(raw_end));
    parts.push_back(run_op("aten::slice.Tensor", {self, IValue(dim), IValue(from), IValue(end),
                                                  IValue(std::int64_t{1})}));
    start = raw_end;
  }
  return IValue::list(std::move(parts));
}
void tensor_split_sections(Stack& s) {
  IValue dim = pop(s), sections_v = pop(s), self = pop(s);
  const std::int64_t sections = sections_v.to_int();
  if (sections <= 0) {
    fail(fmt::format("number of sections must be larger than 0, got {}", sections));
  }
  // Every section is a view: a count no memory holds fails before the list grows to it.
  if (!fits_in_memory(static_cast<std::uint64_t>(sections), sizeof(Tensor))) {
    fail(fmt::format("tensor_split: {} sections need more memory than this machine has", sections));
  }
  const Tensor& t = self.to_tensor();
  const std::int64_t size = t.sizes()[static_cast<std::size_t>(wrap_dim(dim.to_int(), t.dim()))];
  Ints cuts;
  cuts.reserve(static_cast<std::size_t>(sections - 1));
  std::int64_t at = 0;
  for (std::int64_t i = 0; i + 1 < sections; ++i) {
    at += size / sections + (i < size % sections ? 1 : 0);
    cuts.push_back(at);
  }
  s.push_back(split_at(self, cuts, dim.to_int()));
}
void tensor_split_indices(Stack& s) {
  IValue dim = pop(s), indices = pop(s), self = pop(s);
  s.push_back(split_at(self, int_list_arg(indices), dim.to_int()));
}

// split.Tensor(self, split_size, dim=0): views of split_size along dim, the last shorter.
void split_by_size(Stack& s) {
  IValue dim_v = pop(s), size_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() == 0) fail("split expects at least a 1-dimensional tensor");
  const std::int64_t dim = wrap_dim(dim_v.to_int(), t.dim());
  const std::int64_t size = t.sizes()[static_cast<std::size_t>(dim)];
  const std::int64_t step = size_v.to_int();
  if (step < 0 || (step == 0 && size != 0)) {
    fail(
        fmt::format("split_size can only be 0 if dimension size is 0, but got dimension size "
                    "of {}",
                    size));
  }
  Ints cuts;
  for (std::int64_t at = step; step > 0 && at < size; at += step) cuts.push_back(at);
  s.push_back(split_at(self, cuts, dim));
}

// The sum over rows i in [0, rows) of min(cols, max(0, i + a)), exactly (a row's count of
// columns j < i + a, clamped): zero up to row -a, then one more a row, then cols.
__int128 clamped_row_sum(std::int64_t rows, std::int64_t cols, __int128 a) {
  const __int128 first = std::max<__int128>(0, 1 - a);        // first row with a column
  const __int128 full = std::max<__int128>(first, cols - a);  // first row with all of them
  const __int128 ramp_end = std::min<__int128>(rows, full);   // rows [first, ramp_end) ramp
  __int128 sum = 0;
  if (ramp_end > first) sum += (first + a + ramp_end - 1 + a) * (ramp_end - first) / 2;
  if (rows > full) sum += (rows - full) * cols;
  return sum;
}

// triu_indices / tril_indices(row, col, offset=0, *, dtype=int64, ...): the 2 x N coordinates
// of the upper (lower) triangle, row by row. N is computed first, so the output is the only
// allocation and the loops visit only rows that have elements: hostile sizes (2^40 rows) fail
// at the output's size instead of looping.
template <bool kUpper>
void triangle_indices(Stack& s) {
  IValue* a = last(s, 7);
  const std::int64_t rows = a[0].to_int(), cols = a[1].to_int(), offset = a[2].to_int();
  const DType dtype = dtype_arg(a[3]).value_or(DType::kInt64);
  drop(s, 7);
  if (rows < 0) fail(fmt::format("row must be non-negative, got{}", rows));
  if (cols < 0) fail(fmt::format("col must be non-negative, got{}", cols));
  // Row i holds columns [0, i + offset] (lower) or [i + offset, cols) (upper).
  const __int128 count =
      kUpper ? static_cast<__int128>(rows) * cols - clamped_row_sum(rows, cols, offset)
             : clamped_row_sum(rows, cols, static_cast<__int128>(offset) + 1);
  if (count > std::numeric_limits<std::int64_t>::max() / 2) {
    fail(
        fmt::format("{}_indices: the {} x {} triangle at offset {} has {} elements, more than "
                    "a tensor holds",
                    kUpper ? "triu" : "tril", rows, cols, offset, static_cast<double>(count)));
  }
  const auto n = static_cast<std::int64_t>(count);
  Tensor out = Tensor::uninitialized({2, n}, DType::kInt64);
  std::int64_t* r = out.mutable_data<std::int64_t>();
  std::int64_t* c = r + n;
  const __int128 shift = offset;
  // The rows with at least one column: from -offset on (lower), up to cols - offset (upper).
  const auto first_row = static_cast<std::int64_t>(
      kUpper ? 0 : std::clamp<__int128>(-shift, 0, static_cast<__int128>(rows)));
  const auto end_row = static_cast<std::int64_t>(
      kUpper ? std::clamp<__int128>(cols - shift, 0, static_cast<__int128>(rows)) : rows);
  for (std::int64_t i = first_row; i < end_row && n > 0; ++i) {
    const auto edge = static_cast<__int128>(i) + shift;
    const auto from = static_cast<std::int64_t>(kUpper ? std::max<__int128>(edge, 0) : 0);
    const auto to = static_cast<std::int64_t>(
        kUpper ? cols : std::min<__int128>(edge + 1, static_cast<__int128>(cols)));
    for (std::int64_t j = from; j < to; ++j) {
      *r++ = i;
      *c++ = j;
    }
  }
  s.emplace_back(dtype == DType::kInt64 ? out : to_dtype(out, dtype));
}

// rot90(self, k=1, dims=[0, 1]): k quarter turns from dims[0] towards dims[1].
void rot90(Stack& s) {
  IValue dims_v = pop(s), k_v = pop(s), self = pop(s);
  const Ints dims = int_list_arg(dims_v);
  const Tensor& t = self.to_tensor();
  if (dims.size() != 2) {
    fail(fmt::format("expected total rotation dims == 2, but got dims = {}", dims.size()));
  }
  if (t.dim() < 2) fail(fmt::format("expected total dims >= 2, but got total dims = {}", t.dim()));
  const std::int64_t d0 = wrap_dim(dims[0], t.dim()), d1 = wrap_dim(dims[1], t.dim());
  if (d0 == d1) {
    fail(fmt::format("expected rotation dims to be different, but got dim0 = {} and dim1 = {}",
                     dims[0], dims[1]));
  }
  switch (((k_v.to_int() % 4) + 4) % 4) {
    case 1:
      s.push_back(run_op("aten::transpose.int", {run_op("aten::flip", {self, int_list_value({d1})}),
                                                 IValue(d0), IValue(d1)}));
      return;
    case 2:
      s.push_back(run_op("aten::flip", {self, int_list_value({d0, d1})}));
      return;
    case 3:
      s.push_back(run_op(
          "aten::flip",
          {run_op("aten::transpose.int", {self, IValue(d0), IValue(d1)}), int_list_value({d1})}));
      return;
    default:
      s.push_back(run_op("aten::clone", {self}));
  }
}

// diff(self, n=1, dim=-1, prepend=None, append=None): n times the differences of neighbours
// along dim (logical xor for bool), after prepending and appending.
void diff(Stack& s) {
  IValue append = pop(s), prepend = pop(s), dim_v = pop(s), n_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() == 0) fail("diff expects input to be at least one-dimensional");
  const std::int64_t n = n_v.to_int();
  if (n < 0) fail(fmt::format("order must be non-negative but got {}", n));
  const std::int64_t dim = wrap_dim(dim_v.to_int(), t.dim());
  IValue x = self;
  if (!prepend.is_none() || !append.is_none()) {
    IValueList parts;
    if (!prepend.is_none()) parts.push_back(prepend);
    parts.push_back(self);
    if (!append.is_none()) parts.push_back(append);
    x = run_op("aten::cat", {IValue::list(std::move(parts)), IValue(dim)});
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t size = x.to_tensor().sizes()[static_cast<std::size_t>(dim)];
    if (size == 0) break;
    IValue hi = run_op("aten::slice.Tensor", {x, IValue(dim), IValue(std::int64_t{1}), IValue(size),
                                              IValue(std::int64_t{1})});
    IValue lo = run_op("aten::slice.Tensor", {x, IValue(dim), IValue(std::int64_t{0}),
                                              IValue(size - 1), IValue(std::int64_t{1})});
    x = x.to_tensor().dtype() == DType::kBool ? run_op("aten::logical_xor", {hi, lo})
                                              : run_op("aten::sub.Tensor", {hi, lo});
  }
  s.push_back(x);
}

// isclose(self, other, rtol, atol, equal_nan): |self - other| <= atol + rtol * |other|, equal
// values (infinities too) close, NaNs close to each other only with equal_nan.
Tensor isclose_impl(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  if (a.dtype() != b.dtype()) {
    fail(fmt::format("{} did not match {}", tensor::scalar_type_name(a.dtype()),
                     tensor::scalar_type_name(b.dtype())));
  }
  if (rtol < 0) fail(fmt::format("rtol must be greater than or equal to zero, but got {}", rtol));
  if (atol < 0) fail(fmt::format("atol must be greater than or equal to zero, but got {}", atol));
  return dispatch_all(a.dtype(), "isclose", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(a, b, [=](T x, T y) -> bool {
      if (x == y) return true;
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x) || std::isnan(y)) return equal_nan && std::isnan(x) && std::isnan(y);
        if (std::isinf(x) || std::isinf(y)) return false;
        return std::abs(x - y) <= static_cast<T>(atol + rtol * std::abs(static_cast<double>(y)));
      } else {
        const double d = std::abs(static_cast<double>(x) - static_cast<double>(y));
        return d <= atol + rtol * std::abs(static_cast<double>(y));
      }
    });
  });
}
void isclose(Stack& s) {
  IValue equal_nan = pop(s), atol = pop(s), rtol = pop(s), other = pop(s), self = pop(s);
  s.emplace_back(isclose_impl(self.to_tensor(), other.to_tensor(), rtol.to_double(),
                              atol.to_double(), equal_nan.to_bool()));
}
void allclose(Stack& s) {
  IValue equal_nan = pop(s), atol = pop(s), rtol = pop(s), other = pop(s), self = pop(s);
  const Tensor close = isclose_impl(self.to_tensor(), other.to_tensor(), rtol.to_double(),
                                    atol.to_double(), equal_nan.to_bool())
                           .contiguous();
  const bool* p = close.data<bool>();
  s.emplace_back(std::all_of(p, p + close.numel(), [](bool v) { return v; }));
}
// equal(self, other): the same sizes and every element equal (NaN is not).
void equal(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  if (a.sizes() != b.sizes()) {
    s.emplace_back(false);
    return;
  }
  const Tensor same = run_op("aten::eq.Tensor", {self, other}).to_tensor().contiguous();
  const bool* p = same.data<bool>();
  s.emplace_back(std::all_of(p, p + same.numel(), [](bool v) { return v; }));
}

// norm_except_dim(v, pow=2, dim=0): the norm over every dimension but dim, shaped to
// broadcast against v (dim -1: over all).
IValue norm_except_dim(const IValue& v, std::int64_t pow, std::int64_t dim) {
  const Tensor& t = v.to_tensor();
  if (dim == -1) return run_op("aten::norm.Scalar", {v, IValue(pow)});
  const std::int64_t d = wrap_dim(dim, t.dim());
  Ints others;
  for (std::int64_t k = 0; k < t.dim(); ++k) {
    if (k != d) others.push_back(k);
  }
  return run_op("aten::norm.ScalarOpt_dim", {v, IValue(pow), int_list_value(others), IValue(true)});
}
void norm_except_dim_op(Stack& s) {
  IValue dim = pop(s), pow = pop(s), v = pop(s);
  s.push_back(norm_except_dim(v, pow.to_int(), dim.to_int()));
}
// _weight_norm(v, g, dim=0): v * (g / ||v||), the norm over all dimensions but dim
// (nn.utils.weight_norm's weight).
void weight_norm(Stack& s) {
  IValue dim = pop(s), g = pop(s), v = pop(s);
  IValue scale = run_op("aten::div.Tensor", {g, norm_except_dim(v, 2, dim.to_int())});
  s.push_back(run_op("aten::mul.Tensor", {v, scale}));
}

// linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None)
void linalg_vector_norm(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), ord = pop(s), self = pop(s);
  IValue x = dtype.is_none() ? self : run_op("aten::to.dtype", {self, dtype});
  const double p = ord.is(IValue::Kind::kInt) ? static_cast<double>(ord.to_int()) : ord.to_double();
  s.push_back(nn::vector_norm(x, p, dim.is_none() ? IValue::list({}) : dim, keepdim.to_bool()));
}
// frobenius_norm(self) / .dim(self, dim, keepdim=False): the 2-norm.
void frobenius_norm(Stack& s) {
  IValue self = pop(s);
  s.push_back(nn::vector_norm(self, 2.0, IValue::list({}), false));
}
void frobenius_norm_dim(Stack& s) {
  IValue keepdim = pop(s), dim = pop(s), self = pop(s);
  s.push_back(nn::vector_norm(self, 2.0, dim, keepdim.to_bool()));
}

// cdist(x1, x2, p=2, compute_mode=None): the p-norm distance of every row of x1 to every row of
// x2 (batched over leading dimensions, broadcast), in double, rounded once.
void cdist(Stack& s) {
  IValue mode = pop(s), p_v = pop(s), x2_v = pop(s), x1_v = pop(s);
  (void)mode;
  const Tensor& x1 = x1_v.to_tensor();
  const Tensor& x2 = x2_v.to_tensor();
  const double p = p_v.to_double();
  if (x1.dim() < 2)
    fail(fmt::format("cdist only supports at least 2D tensors, X1 got: {}D", x1.dim()));
  if (x2.dim() < 2)
    fail(fmt::format("cdist only supports at least 2D tensors, X2 got: {}D", x2.dim()));
  if (x1.sizes().back() != x2.sizes().back()) {
    fail(fmt::format("X1 and X2 must have the same number of columns. X1: {} X2: {}",
                     x1.sizes().back(), x2.sizes().back()));
  }
  if (!is_floating(x1.dtype()) || !is_floating(x2.dtype())) {
    fail(fmt::format("cdist only supports floating-point dtypes, X1 got: {}",
                     tensor::scalar_type_name(x1.dtype())));
  }
  if (p < 0) fail("cdist only supports non-negative p values");
  const Ints b1(x1.sizes().begin(), x1.sizes().end() - 2),
      b2(x2.sizes().begin(), x2.sizes().end() - 2);
  const Ints batch = tensor::broadcast_shapes(b1, b2);
  const std::int64_t r1 = x1.sizes()[x1.sizes().size() - 2], r2 = x2.sizes()[x2.sizes().size() - 2];
  const std::int64_t m = x1.sizes().back();
  Ints e1 = batch, e2 = batch, out_sizes = batch;
  e1.insert(e1.end(), {r1, m});
  e2.insert(e2.end(), {r2, m});
  out_sizes.insert(out_sizes.end(), {r1, r2});
  const Tensor a =
      to_dtype(run_op("aten::expand", {x1_v, int_list_value(e1)}).to_tensor(), DType::kFloat64);
  const Tensor b =
      to_dtype(run_op("aten::expand", {x2_v, int_list_value(e2)}).to_tensor(), DType::kFloat64);
  const DType dtype = ResultType().tensor(x1).tensor(x2).result();
  Tensor out = Tensor::uninitialized(out_sizes, DType::kFloat64);
  const double* pa = a.data<double>();
  const double* pb = b.data<double>();
  double* po = out.mutable_data<double>();
  const std::int64_t batches = r1 * r2 == 0 ? 0 : out.numel() / (r1 * r2);
  for (std::int64_t n = 0; n < batches; ++n) {
    for (std::int64_t i = 0; i < r1; ++i) {
      for (std::int64_t j = 0; j < r2; ++j) {
        const double* u = pa + (n * r1 + i) * m;
        const double* v = pb + (n * r2 + j) * m;
        double acc = 0;
        for (std::int64_t k = 0; k < m; ++k) {
          const double d = std::abs(u[k] - v[k]);
          if (p == 0) {
            acc += d != 0 ? 1 : 0;
          } else if (std::isinf(p)) {
            acc = std::max(acc, d);
          } else {
            acc += std::pow(d, p);
          }
        }
        po[(n * r1 + i) * r2 + j] = p == 0 || std::isinf(p) ? acc : std::pow(acc, 1.0 / p);
      }
    }
  }
  s.emplace_back(to_dtype(out, dtype));
}

// linalg_cross(self, other, *, dim=-1) and cross(self, other, dim=None): the cross product of
// 3-vectors along dim (cross without dim: the first dimension of size 3).
Tensor cross_impl(const IValue& a_v, const IValue& b_v, std::int64_t dim_arg) {
  const Tensor& a = a_v.to_tensor();
  const Tensor& b = b_v.to_tensor();
  if (a.dim() != b.dim()) {
    fail(fmt::format("linalg.cross: inputs must have the same number of dimensions."));
  }
  const Ints shape = tensor::broadcast_shapes(a.sizes(), b.sizes());
  const std::int64_t dim = wrap_dim(dim_arg, static_cast<std::int64_t>(shape.size()));
  if (shape[static_cast<std::size_t>(dim)] != 3 || a.sizes()[static_cast<std::size_t>(dim)] != 3 ||
      b.sizes()[static_cast<std::size_t>(dim)] != 3) {
    fail(fmt::format("linalg.cross: inputs dimension {} must have length 3. Got {} and {}", dim_arg,
                     a.sizes()[static_cast<std::size_t>(dim)],
                     b.sizes()[static_cast<std::size_t>(dim)]));
  }
  auto component = [&](const IValue& t, std::int64_t k) {
    return run_op("aten::select.int",
                  {run_op("aten::expand", {t, int_list_value(shape)}), IValue(dim), IValue(k)});
  };
  auto term = [&](std::int64_t i, std::int64_t j) {
    return run_op("aten::sub.Tensor",
                  {run_op("aten::mul.Tensor", {component(a_v, i), component(b_v, j)}),
                   run_op("aten::mul.Tensor", {component(a_v, j), component(b_v, i)})});
  };
  return run_op("aten::stack", {IValue::list({term(1, 2), term(2, 0), term(0, 1)}), IValue(dim)})
      .to_tensor();
}
void linalg_cross(Stack& s) {
  IValue dim = pop(s), other = pop(s), self = pop(s);
  s.emplace_back(cross_impl(self, other, dim.to_int()));
}
void cross(Stack& s) {
  IValue dim = pop(s), other = pop(s), self = pop(s);
  std::int64_t d = -1;
  if (!dim.is_none()) {
    d = dim.to_int();
  } else {
    const Ints& sizes = self.to_tensor().sizes();
    const auto it = std::find(sizes.begin(), sizes.end(), 3);
    if (it == sizes.end()) fail("no dimension of size 3 in input");
    d = it - sizes.begin();
  }
  s.emplace_back(cross_impl(self, other, d));
}

// all / any (over everything, or along dim): whether every / some element is nonzero, bool
// (uint8 for a uint8 self, as PyTorch keeps it), from the count of nonzero elements.
template <bool kAll>
IValue all_any(const IValue& self, std::optional<std::int64_t> dim, bool keepdim) {
  const Tensor& t = self.to_tensor();
  IValue count = dim ? run_op("aten::count_nonzero", {self, IValue(*dim)})
                     : run_op("aten::count_nonzero", {self, IValue()});
  std::int64_t needed = 1;
  if (kAll)
    needed = dim ? (t.dim() == 0 ? 1 : t.sizes()[static_cast<std::size_t>(wrap_dim(*dim, t.dim()))])
                 : t.numel();
  IValue result = kAll ? run_op("aten::eq.Scalar", {count, IValue(needed)})
                       : run_op("aten::gt.Scalar", {count, IValue(std::int64_t{0})});
  if (dim && keepdim && t.dim() > 0) {
    result = run_op("aten::unsqueeze", {result, IValue(wrap_dim(*dim, t.dim()))});
  }
  if (t.dtype() == DType::kUInt8) result = IValue(to_dtype(result.to_tensor(), DType::kUInt8));
  return result;
}
template <bool kAll>
void all_any_all(Stack& s) {
  IValue self = pop(s);
  s.push_back(all_any<kAll>(self, std::nullopt, false));
}
template <bool kAll>
void all_any_dim(Stack& s) {
  IValue keepdim = pop(s), dim = pop(s), self = pop(s);
  s.push_back(all_any<kAll>(self, dim.to_int(), keepdim.to_bool()));
}

// unfold(self, dimension, size, step): a view of every window of `size` elements `step` apart
// along dimension, the windows' elements a new last dimension.
void unfold(Stack& s) {
  IValue step_v = pop(s), size_v = pop(s), dim_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const std::int64_t dim = t.dim() == 0 ? 0 : wrap_dim(dim_v.to_int(), t.dim());
  const std::int64_t size = size_v.to_int(), step = step_v.to_int();
  const std::int64_t length = t.dim() == 0 ? 1 : t.sizes()[static_cast<std::size_t>(dim)];
  if (size > length) {
    fail(fmt::format("maximum size for tensor at dimension {} is {} but size is {}", dim, length,
                     size));
  }
  if (step <= 0) fail(fmt::format("step is {} but must be > 0", step));
  // (PyTorch checks no lower bound: -1 fails at its storage check, INT64_MIN overflows.)
  if (size < 0) fail(fmt::format("unfold: size is {} but must be >= 0", size));
  Ints sizes = t.sizes(), strides = t.strides();
  if (t.dim() == 0) {
    s.emplace_back(Tensor::from_storage(t.storage(), t.dtype(), {size}, {1}, t.storage_offset()));
    return;
  }
  const auto d = static_cast<std::size_t>(dim);
  const std::int64_t stride = strides[d];
  sizes[d] = (length - size) / step + 1;
  strides[d] = wrapping_mul(stride, step);  // as PyTorch's: one window when step passes the end
  sizes.push_back(size);
  strides.push_back(stride);
  s.emplace_back(Tensor::from_storage(t.storage(), t.dtype(), sizes, strides, t.storage_offset()));
}

// clamp.Tensor(self, min=None, max=None): maximum with min, then minimum with max (NaN in any
// of them gives NaN), broadcast and promoted as those are.
IValue clamp_tensor_impl(const IValue& self, const IValue& lo, const IValue& hi) {
  if (lo.is_none() && hi.is_none()) {
    fail("torch.clamp: At least one of 'min' or 'max' must not be None");
  }
  IValue x = self;
  if (!lo.is_none()) x = run_op("aten::maximum", {x, lo});
  if (!hi.is_none()) x = run_op("aten::minimum", {x, hi});
  return x;
}
void clamp_tensor(Stack& s) {
  IValue hi = pop(s), lo = pop(s), self = pop(s);
  s.push_back(clamp_tensor_impl(self, lo, hi));
}
void clamp_tensor_(Stack& s) {
  IValue hi = pop(s), lo = pop(s), self = pop(s);
  push_in_place(s, self, clamp_tensor_impl(self, lo, hi).to_tensor());
}
void clamp_min_tensor(Stack& s) {
  IValue lo = pop(s), self = pop(s);
  s.push_back(clamp_tensor_impl(self, lo, IValue()));
}
void clamp_max_tensor(Stack& s) {
  IValue hi = pop(s), self = pop(s);
  s.push_back(clamp_tensor_impl(self, IValue(), hi));
}

// tril_ / triu_: the triangle written into self.
template <bool kUpper>
void triangle_(Stack& s) {
  IValue k = pop(s), self = pop(s);
  push_in_place(s, self, run_op(kUpper ? "aten::triu" : "aten::tril", {self, k}).to_tensor());
}

// true_divide: div's other name.
void true_divide_tensor(Stack& s) { rerun_as(s, 2, "aten::div.Tensor"); }
void true_divide_scalar(Stack& s) { rerun_as(s, 2, "aten::div.Scalar"); }

// take(self, index): self flattened, indexed (negative indices count from the end).
void take(Stack& s) {
  IValue index = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const Tensor idx = index.to_tensor().contiguous();
  if (idx.dtype() != DType::kInt64) {
    fail(fmt::format("take(): Expected a long tensor for index, but got {}",
                     tensor::scalar_type_name(idx.dtype())));
  }
  const std::int64_t n = t.numel();
  const std::int64_t* p = idx.data<std::int64_t>();
  for (std::int64_t i = 0; i < idx.numel(); ++i) {
    if (p[i] < -n || p[i] >= n) {
      throw OpError("IndexError", fmt::format("out of range: tried to access index {} on a tensor "
                                              "of {} elements.",
                                              p[i], n));
    }
  }
  IValue flat = run_op("aten::reshape", {self, int_list_value({n})});
  s.push_back(run_op("aten::index.Tensor", {flat, IValue::list({index})}));
}

// argwhere(self): the coordinates of the nonzero elements, one row each.
void argwhere(Stack& s) { rerun_as(s, 1, "aten::nonzero"); }

}  // namespace

void register_composed_ops(OperatorRegistry& r) {
  IValue none;
  r.add({"aten::ones_like", 6, {none, none, none, none, none}, ones_like});
  r.add({"aten::empty_like", 6, {none, none, none, none, none}, empty_like});
  r.add({"aten::new_full", 7, {none, none, none, none}, new_full});
  r.add({"aten::new_ones", 6, {none, none, none, none}, new_ones});
  r.add({"aten::new_empty", 6, {none, none, none, none}, new_empty});
  r.add({"aten::type_as", 2, {}, type_as});
  r.add({"aten::view_as", 2, {}, view_as_op});
  r.add({"aten::reshape_as", 2, {}, reshape_as});
  r.add({"aten::numpy_T", 1, {}, numpy_t});
  r.add({"aten::numpy_T.a", 1, {}, numpy_t});
  r.add({"aten::swapaxes", 3, {}, swapaxes});
  r.add({"aten::swapdims", 3, {}, swapaxes});
  r.add({"aten::movedim.int", 3, {}, movedim_int});
  r.add({"aten::movedim.intlist", 3, {}, movedim_intlist});
  r.add({"aten::moveaxis.int", 3, {}, movedim_int});
  r.add({"aten::moveaxis.intlist", 3, {}, movedim_intlist});
  r.add({"aten::narrow", 4, {}, narrow});
  r.add({"aten::narrow.Tensor", 4, {}, narrow_tensor});
  r.add({"aten::clip", 3, {none, none}, clip});
  r.add({"aten::clip_", 3, {none, none}, clip_});
  r.add({"aten::clamp_min_", 2, {}, clamp_min_});
  r.add({"aten::clamp_max_", 2, {}, clamp_max_});
  r.add({"aten::square", 1, {}, square});
  r.add({"aten::tile", 2, {}, tile});
  r.add({"aten::outer", 2, {}, outer});
  r.add({"aten::ger", 2, {}, outer});
  r.add({"aten::masked_select", 2, {}, masked_select});
  r.add({"aten::addcmul", 4, {IValue(std::int64_t{1})}, addcmul});
  r.add({"aten::addcdiv", 4, {IValue(std::int64_t{1})}, addcdiv});
  const IValue zero(std::int64_t{0}), two(std::int64_t{2});
  r.add({"aten::atleast_1d", 1, {}, atleast<1>});
  r.add({"aten::atleast_2d", 1, {}, atleast<2>});
  r.add({"aten::atleast_3d", 1, {}, atleast<3>});
  r.add({"aten::hstack", 1, {}, hstack});
  r.add({"aten::vstack", 1, {}, vstack});
  r.add({"aten::row_stack", 1, {}, vstack});
  r.add({"aten::dstack", 1, {}, dstack});
  r.add({"aten::column_stack", 1, {}, column_stack});
  r.add({"aten::broadcast_to", 2, {}, broadcast_to});
  r.add({"aten::tensor_split.sections", 3, {zero}, tensor_split_sections});
  r.add({"aten::tensor_split.indices", 3, {zero}, tensor_split_indices});
  r.add({"aten::split.Tensor", 3, {zero}, split_by_size});
  r.add({"aten::unsafe_split.Tensor", 3, {zero}, split_by_size});
  r.add({"aten::triu_indices",
         7,
         {zero, IValue(std::int64_t{4}), none, none, none},
         triangle_indices<true>});
  r.add({"aten::tril_indices",
         7,
         {zero, IValue(std::int64_t{4}), none, none, none},
         triangle_indices<false>});
  r.add({"aten::rot90", 3, {IValue(std::int64_t{1}), int_list_value({0, 1})}, rot90});
  r.add({"aten::diff", 5, {IValue(std::int64_t{1}), IValue(std::int64_t{-1}), none, none}, diff});
  r.add({"aten::isclose", 5, {IValue(1e-05), IValue(1e-08), IValue(false)}, isclose});
  r.add({"aten::allclose", 5, {IValue(1e-05), IValue(1e-08), IValue(false)}, allclose});
  r.add({"aten::equal", 2, {}, equal});
  r.add({"aten::norm_except_dim", 3, {two, zero}, norm_except_dim_op});
  r.add({"aten::_weight_norm", 3, {zero}, weight_norm});
  r.add({"aten::linalg_vector_norm", 5, {two, none, IValue(false), none}, linalg_vector_norm});
  r.add({"aten::frobenius_norm", 1, {}, frobenius_norm});
  r.add({"aten::frobenius_norm.dim", 3, {IValue(false)}, frobenius_norm_dim});
  r.add({"aten::cdist", 4, {IValue(2.0), none}, cdist});
  r.add({"aten::linalg_cross", 3, {IValue(std::int64_t{-1})}, linalg_cross});
  r.add({"aten::cross", 3, {none}, cross});
  r.add({"aten::all", 1, {}, all_any_all<true>});
  r.add({"aten::any", 1, {}, all_any_all<false>});
  r.add({"aten::all.dim", 3, {IValue(false)}, all_any_dim<true>});
  r.add({"aten::any.dim", 3, {IValue(false)}, all_any_dim<false>});
  r.add({"aten::unfold", 4, {}, unfold});
  r.add({"aten::clamp.Tensor", 3, {none, none}, clamp_tensor});
  r.add({"aten::clamp_.Tensor", 3, {none, none}, clamp_tensor_});
  r.add({"aten::clip.Tensor", 3, {none, none}, clamp_tensor});
  r.add({"aten::clamp_min.Tensor", 2, {}, clamp_min_tensor});
  r.add({"aten::clamp_max.Tensor", 2, {}, clamp_max_tensor});
  r.add({"aten::tril_", 2, {zero}, triangle_<false>});
  r.add({"aten::triu_", 2, {zero}, triangle_<true>});
  r.add({"aten::true_divide.Tensor", 2, {}, true_divide_tensor});
  r.add({"aten::true_divide.Scalar", 2, {}, true_divide_scalar});
  r.add({"aten::take", 2, {}, take});
  r.add({"aten::argwhere", 1, {}, argwhere});
}

}  // namespace symbolite::ops
