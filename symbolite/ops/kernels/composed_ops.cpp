// Operators that are other operators with their arguments rearranged: the `*_like` and `new_*`
// factories, the `*_as` conversions, axis moves (swapaxes, movedim, numpy_T), narrow, clip,
// square, tile, outer / dot / mv, masked_select, addcmul / addcdiv, and the in-place one-sided
// clamps. Each checks what PyTorch checks before it composes (with PyTorch's message) and runs
// the operators PyTorch's own composite runs, so results are theirs.
#include <algorithm>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

IValue code_of(DType dtype) { return IValue(scalar_type_code(dtype)); }

// ones_like(self, *, dtype, layout, device, pin_memory, memory_format): full_like with 1.
void ones_like(Stack& s) {
  IValue* a = last(s, 6);
  IValue self = a[0], dtype = a[1], layout = a[2], device = a[3], pin = a[4], format = a[5];
  drop(s, 6);
  s.push_back(run_op("aten::full_like",
                     {self, IValue(std::int64_t{1}), dtype, layout, device, pin, format}));
}

// empty_like: symbolite's empty tensors are zeros (zeros_like).
void empty_like(Stack& s) {
  IValue* a = last(s, 6);
  std::vector<IValue> args(a, a + 6);
  drop(s, 6);
  s.push_back(run_op("aten::zeros_like", std::move(args)));
}

// new_full(self, size, fill_value, *, dtype, layout, device, pin_memory): full of self's dtype
// unless told otherwise.
void new_full(Stack& s) {
  IValue* a = last(s, 7);
  const Tensor self = a[0].to_tensor();
  IValue size = a[1], value = a[2], dtype = a[3], layout = a[4], device = a[5], pin = a[6];
  drop(s, 7);
  if (dtype.is_none()) dtype = code_of(self.dtype());
  s.push_back(run_op("aten::full", {size, value, dtype, layout, device, pin}));
}

// new_ones(self, size, *, dtype, layout, device, pin_memory)
void new_ones(Stack& s) {
  IValue* a = last(s, 6);
  const Tensor self = a[0].to_tensor();
  IValue size = a[1], dtype = a[2], layout = a[3], device = a[4], pin = a[5];
  drop(s, 6);
  if (dtype.is_none()) dtype = code_of(self.dtype());
  s.push_back(run_op("aten::full", {size, IValue(std::int64_t{1}), dtype, layout, device, pin}));
}

// new_empty: zeros, as new_zeros.
void new_empty(Stack& s) {
  IValue* a = last(s, 6);
  std::vector<IValue> args(a, a + 6);
  drop(s, 6);
  s.push_back(run_op("aten::new_zeros", std::move(args)));
}

// type_as(self, other): self.to(other's dtype), self itself when it already is.
void type_as(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.push_back(run_op("aten::to.dtype", {self, code_of(other.to_tensor().dtype())}));
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

void swapaxes(Stack& s) {
  IValue b = pop(s), a = pop(s), self = pop(s);
  s.push_back(run_op("aten::transpose.int", {self, a, b}));
}

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
void clip(Stack& s) {
  IValue hi = pop(s), lo = pop(s), self = pop(s);
  s.push_back(run_op("aten::clamp", {self, lo, hi}));
}
void clip_(Stack& s) {
  IValue hi = pop(s), lo = pop(s), self = pop(s);
  s.push_back(run_op("aten::clamp_", {self, lo, hi}));
}
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

// dot(self, tensor): two 1-D tensors of one size and dtype.
void dot(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  if (a.dim() != 1 || b.dim() != 1) {
    fail(fmt::format("1D tensors expected, but got {}D and {}D tensors", a.dim(), b.dim()));
  }
  if (a.dtype() != b.dtype()) {
    fail(fmt::format("dot : expected both vectors to have same dtype, but found {} and {}",
                     tensor::scalar_type_name(a.dtype()), tensor::scalar_type_name(b.dtype())));
  }
  if (a.numel() != b.numel()) {
    fail(
        fmt::format("inconsistent tensor size, expected tensor [{}] and src [{}] to have the "
                    "same number of elements, but got {} and {} elements respectively",
                    a.numel(), b.numel(), a.numel(), b.numel()));
  }
  s.push_back(run_op("aten::matmul", {self, other}));
}

// mv(self, vec): a matrix times a vector.
void mv(Stack& s) {
  IValue vec = pop(s), self = pop(s);
  const Tensor& m = self.to_tensor();
  const Tensor& v = vec.to_tensor();
  if (m.dim() != 2 || v.dim() != 1) {
    fail(fmt::format("vector + matrix @ vector expected, got 1, {}, {}", m.dim(), v.dim()));
  }
  if (m.sizes()[1] != v.sizes()[0]) {
    fail(fmt::format("size mismatch, got {}, {}x{},{}", m.sizes()[0], m.sizes()[0], m.sizes()[1],
                     v.sizes()[0]));
  }
  s.push_back(run_op("aten::matmul", {self, vec}));
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

// addcmul(self, tensor1, tensor2, *, value=1): self + value * tensor1 * tensor2.
void addcmul(Stack& s) {
  IValue value = pop(s), t2 = pop(s), t1 = pop(s), self = pop(s);
  IValue product = run_op("aten::mul.Tensor", {t1, t2});
  s.push_back(run_op("aten::add.Tensor", {self, product, value}));
}

// addcdiv(self, tensor1, tensor2, *, value=1): self + value * tensor1 / tensor2, floating only.
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
  IValue quotient = run_op("aten::div.Tensor", {t1, t2});
  s.push_back(run_op("aten::add.Tensor", {self, quotient, value}));
}

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
  r.add({"aten::dot", 2, {}, dot});
  r.add({"aten::mv", 2, {}, mv});
  r.add({"aten::masked_select", 2, {}, masked_select});
  r.add({"aten::addcmul", 4, {IValue(std::int64_t{1})}, addcmul});
  r.add({"aten::addcdiv", 4, {IValue(std::int64_t{1})}, addcdiv});
}

}  // namespace symbolite::ops
