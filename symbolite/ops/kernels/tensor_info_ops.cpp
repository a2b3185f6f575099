// What a model asks about tensors and dtypes, and the identities of a CPU-only runtime:
// element_size, stride, get_device, cpu, data, alias, IntImplicit / FloatImplicit, Size, warn,
// scalar_tensor, result_type, can_cast, promote_types, and the strided views and factories
// (as_strided, empty_strided, new_empty_strided), whose every element is proven to lie inside
// the storage before the view exists (a hostile size or stride fails, never reads outside).
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/ops/registry/warnings.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

void element_size(Stack& s) {
  s.emplace_back(static_cast<std::int64_t>(tensor::element_size(pop(s).to_tensor().dtype())));
}

void strides(Stack& s) { s.push_back(int_list_value(pop(s).to_tensor().strides())); }

void stride_int(Stack& s) {
  const std::int64_t dim = pop(s).to_int();
  const Tensor t = pop(s).to_tensor();
  // A 0-dim tensor's only dimension (0 or -1) has stride 1, as PyTorch reports it.
  const std::int64_t d = wrap_dim(dim, t.dim());
  s.emplace_back(t.dim() == 0 ? std::int64_t{1} : t.strides()[static_cast<std::size_t>(d)]);
}

// get_device: -1, a CPU tensor's answer.
void get_device(Stack& s) {
  pop(s);
  s.emplace_back(std::int64_t{-1});
}

// cpu, data and alias: the tensor itself (everything lives on the CPU; no autograd); Size
// (torch.Size of a list): the list itself. The argument stays on the stack as the result.
void unchanged(Stack& /*s*/) {}

// IntImplicit / FloatImplicit: a 0-dim tensor where an int / float is expected.
template <bool kInt>
void implicit_number(Stack& s) {
  const Tensor t = pop(s).to_tensor();
  if (t.dim() != 0) fail("Cannot input a tensor of dimension other than 0 as a scalar argument");
  if (kInt && !is_integral(t.dtype())) {
    fail(fmt::format("Cannot input a tensor of type {} as an integral argument",
                     tensor::scalar_type_name(t.dtype())));
  }
  if constexpr (kInt) {
    s.push_back(run_op("aten::item", {IValue(t)}));  // exact, however large
  } else {
    s.emplace_back(element_as_double(t.contiguous(), 0));
  }
}

// warn(message, stacklevel=2): `warnings.warn` in the model, to the warning handler.
void warn_op(Stack& s) {
  pop(s);
  warn(pop(s).to_string());
}

// scalar_tensor(s, *, dtype=None, layout, device, pin_memory): a 0-dim tensor of the number,
// float32 unless told (PyTorch's default for every number here).
void scalar_tensor_op(Stack& s) {
  pop(s);
  pop(s);
  pop(s);
  const std::optional<DType> dtype = dtype_arg(pop(s));
  const IValue value = pop(s);
  s.emplace_back(checked_scalar_tensor(value, dtype.value_or(DType::kFloat32)));
}

// result_type of two operands, each a tensor or a number (as PyTorch's ResultTypeState sees
// them), as a ScalarType code.
void result_type(Stack& s) {
  const IValue b = pop(s), a = pop(s);
  s.emplace_back(scalar_type_code(ResultType().operand(a).operand(b).result()));
}

DType dtype_code(const IValue& v) {
  const std::optional<DType> d = dtype_arg(v);
  if (!d) fail("expected a dtype, got None");
  return *d;
}

void can_cast_op(Stack& s) {
  const DType to = dtype_code(pop(s)), from = dtype_code(pop(s));
  s.emplace_back(can_cast(from, to));
}

void promote_types_op(Stack& s) {
  const DType b = dtype_code(pop(s)), a = dtype_code(pop(s));
  s.emplace_back(scalar_type_code(promote_types(a, b)));
}

// The element count from 0 to the furthest element of `sizes` x `strides` past `offset` (0 when
// a size is 0); a hostile geometry whose count overflows int64 fails.
std::int64_t elements_spanned(const Ints& sizes, const Ints& strides, std::int64_t offset) {
  std::int64_t last = offset;
  for (std::size_t d = 0; d < sizes.size() && d < strides.size(); ++d) {
    if (sizes[d] == 0) return 0;
    std::int64_t step = 0;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &step) ||
        __builtin_add_overflow(last, step, &last) ||
        last == std::numeric_limits<std::int64_t>::max()) {  // the count is last + 1
      fail(fmt::format("Storage size calculation overflowed with sizes={} and strides={}",
                       tensor::format_sizes(sizes), tensor::format_sizes(strides)));
    }
  }
  return last + 1;
}

// PyTorch's checks of a strided geometry, with its messages.
void check_geometry(const Ints& sizes, const Ints& strides) {
  if (sizes.size() != strides.size()) fail("mismatch in length of strides and shape");
  for (std::int64_t stride : strides) {
    if (stride < 0) {
      fail(fmt::format(
          "as_strided: Negative strides are not supported at the moment, got strides: {}",
          tensor::format_sizes(strides)));
    }
  }
  for (std::int64_t size : sizes) {
    if (size < 0) {
      fail(fmt::format("Trying to create tensor with negative dimension {}: {}", size,
                       tensor::format_sizes(sizes)));
    }
  }
}

// A view of `base`'s storage with the given geometry; one reaching outside the storage fails
// before it exists.
Tensor strided_view(const Tensor& base, const Ints& sizes, const Ints& strides,
                    std::int64_t offset) {
  check_geometry(sizes, strides);
  if (offset < 0) fail(fmt::format("Tensor: invalid storage offset {}", offset));
  const auto itemsize = static_cast<std::int64_t>(tensor::element_size(base.dtype()));
  std::int64_t needed = 0;
  if (__builtin_mul_overflow(elements_spanned(sizes, strides, offset), itemsize, &needed)) {
    fail(fmt::format("Storage size calculation overflowed with sizes={} and strides={}",
                     tensor::format_sizes(sizes), tensor::format_sizes(strides)));
  }
  const auto available = static_cast<std::int64_t>(base.storage().nbytes());
  if (needed > available) {
    fail(
        fmt::format("setStorage: sizes {}, strides {}, storage offset {}, and itemsize {} "
                    "requiring a storage size of {} are out of bounds for storage of size {}",
                    tensor::format_sizes(sizes), tensor::format_sizes(strides), offset, itemsize,
                    needed, available));
  }
  return Tensor::from_storage(base.storage(), base.dtype(), sizes, strides, offset);
}

// as_strided(self, size, stride, storage_offset=None): a view of self's storage.
void as_strided(Stack& s) {
  const IValue offset = pop(s);
  const Ints strides = int_list_arg(pop(s)), sizes = int_list_arg(pop(s));
  const Tensor self = pop(s).to_tensor();
  s.emplace_back(strided_view(self, sizes, strides,
                              offset.is_none() ? self.storage_offset() : offset.to_int()));
}

// A zero tensor laid out with `strides`: storage up to the furthest element, then the view.
Tensor zeros_strided(const Ints& sizes, const Ints& strides, DType dtype) {
  check_geometry(sizes, strides);
  const Tensor storage = Tensor::empty({elements_spanned(sizes, strides, 0)}, dtype);
  return strided_view(storage, sizes, strides, 0);
}

// empty_strided(size, stride, *, dtype, layout, device, pin_memory)
void empty_strided(Stack& s) {
  pop(s);
  pop(s);
  pop(s);
  const std::optional<DType> dtype = dtype_arg(pop(s));
  const Ints strides = int_list_arg(pop(s)), sizes = int_list_arg(pop(s));
  s.emplace_back(zeros_strided(sizes, strides, dtype.value_or(DType::kFloat32)));
}

// new_empty_strided(self, size, stride, *, dtype, layout, device, pin_memory): self's dtype
// unless told.
void new_empty_strided(Stack& s) {
  pop(s);
  pop(s);
  pop(s);
  const std::optional<DType> dtype = dtype_arg(pop(s));
  const Ints strides = int_list_arg(pop(s)), sizes = int_list_arg(pop(s));
  const Tensor self = pop(s).to_tensor();
  s.emplace_back(zeros_strided(sizes, strides, dtype.value_or(self.dtype())));
}

}  // namespace

void register_tensor_info_ops(OperatorRegistry& r) {
  const IValue none;
  r.add({"aten::element_size", 1, {}, element_size});
  r.add({"aten::stride", 1, {}, strides});
  r.add({"aten::stride.int", 2, {}, stride_int});
  r.add({"aten::get_device", 1, {}, get_device});
  r.add({"aten::cpu", 1, {}, unchanged});
  r.add({"aten::data", 1, {}, unchanged});
  r.add({"aten::alias", 1, {}, unchanged});
  r.add({"aten::IntImplicit", 1, {}, implicit_number<true>});
  r.add({"aten::FloatImplicit", 1, {}, implicit_number<false>});
  r.add({"aten::Size", 1, {}, unchanged});
  r.add({"aten::warn", 2, {IValue(std::int64_t{2})}, warn_op});
  r.add({"aten::scalar_tensor", 5, {none, none, none, none}, scalar_tensor_op});
  for (const char* overload : {"Tensor", "Scalar", "Scalar_Tensor", "Scalar_Scalar"}) {
    r.add({std::string("aten::result_type.") + overload, 2, {}, result_type});
  }
  r.add({"aten::can_cast", 2, {}, can_cast_op});
  r.add({"aten::promote_types", 2, {}, promote_types_op});
  r.add({"aten::as_strided", 4, {none}, as_strided});
  r.add({"aten::empty_strided", 6, {none, none, none, none}, empty_strided});
  r.add({"aten::new_empty_strided", 7, {none, none, none, none}, new_empty_strided});
}

}  // namespace symbolite::ops
