// aten::masked_fill and masked_fill_ (.Scalar and .Tensor): `self` broadcast with `mask`, copied,
// and `value` written where the mask is set. PyTorch 1.13's order of checks and messages:
// broadcasting (mask is tensor a), the 0-dim value tensor, then the checked conversion of the
// value to self's dtype ("value cannot be converted to type int64_t without overflow").
// masked_scatter(_) writes a source tensor's elements, in order, where the mask is set.
#include <atomic>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/element_runs.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/error.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

// The broadcast shape of mask and self, PyTorch's expand_outplace(mask, self).
Sizes broadcast_mask(const Tensor& mask, const Tensor& self) {
  try {
    return tensor::broadcast_shapes(mask.sizes(), self.sizes());
  } catch (const Error& e) {
    fail(e.message());
  }
}

// The 0-dim value tensor's element as a Scalar IValue.
IValue value_of(const Tensor& value) {
  if (value.dim() != 0) {
    fail(
        fmt::format("masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                    "with {} dimension(s).",
                    value.dim()));
  }
  Tensor v = value.contiguous();
  switch (v.dtype()) {
    case DType::kFloat32:
      return IValue(static_cast<double>(v.data<float>()[0]));
    case DType::kFloat64:
      return IValue(v.data<double>()[0]);
    case DType::kBool:
      return IValue(v.data<bool>()[0]);
    default:
      return dispatch_all(v.dtype(), "masked_fill", [&](auto tag) -> IValue {
        using T = decltype(tag);
        return IValue(static_cast<std::int64_t>(v.data<T>()[0]));
      });
  }
}

Tensor masked_fill_impl(const Tensor& self, const Tensor& mask, const IValue& value) {
  Sizes sizes = broadcast_mask(mask, self);
  if (mask.dtype() != DType::kBool && mask.dtype() != DType::kUInt8) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("aten::masked_fill: a {} mask is not supported (use a bool mask)",
                            tensor::scalar_type_name(mask.dtype())));
  }
  return dispatch_all(self.dtype(), "masked_fill", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    T fill = checked_value<T>(value);
    Tensor out = Tensor::uninitialized(sizes, self.dtype());
    if (out.numel() == 0) return out;
    T* dst = out.template mutable_data<T>();
    const T* src = self.template data<T>();
    const std::uint8_t* m = mask.raw_data();  // bool and uint8 are one byte
    std::atomic<bool> bad_mask = false;
    for_each_row<3>(sizes,
                    {tensor::contiguous_strides(sizes), broadcast_strides(self, sizes),
                     broadcast_strides(mask, sizes)},
                    [&](const std::array<std::int64_t, 3>& o, std::int64_t n,
                        const std::array<std::int64_t, 3>& step) {
                      T* d = dst + o[0];
                      const T* x = src + o[1];
                      const std::uint8_t* bits = m + o[2];
                      std::uint8_t seen = 0;
                      if (step[1] == 1 && step[2] == 1) {
                        seen = cpu::or_bytes(bits, n);
                        cpu::zip_run(bits, x, d, n,
                                     [fill](std::uint8_t bit, T v) { return bit ? fill : v; });
                      } else {
                        for (std::int64_t i = 0; i < n; ++i) {
                          const std::uint8_t bit = bits[i * step[2]];
                          seen |= bit;
                          d[i] = bit != 0 ? fill : x[i * step[1]];
                        }
                      }
                      if (seen > 1) bad_mask = true;
                    });
    if (bad_mask) fail("Mask tensor can take 0 and 1 values only");
    return out;
  });
}

// aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value)
void masked_fill_scalar(Stack& s) {
  IValue value = pop(s), mask = pop(s), self = pop(s);
  s.emplace_back(masked_fill_impl(self.to_tensor(), mask.to_tensor(), value));
}

// aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value)
void masked_fill_tensor(Stack& s) {
  IValue value = pop(s), mask = pop(s), self = pop(s);
  broadcast_mask(mask.to_tensor(), self.to_tensor());  // PyTorch checks shapes first
  s.emplace_back(masked_fill_impl(self.to_tensor(), mask.to_tensor(), value_of(value.to_tensor())));
}

// masked_fill_ (.Scalar and .Tensor): the out-of-place result written into self; the mask
// must broadcast to self's shape (self does not grow).
void masked_fill__scalar(Stack& s) {
  IValue value = pop(s), mask = pop(s), self = pop(s);
  push_in_place(s, self, masked_fill_impl(self.to_tensor(), mask.to_tensor(), value));
}
void masked_fill__tensor(Stack& s) {
  IValue value = pop(s), mask = pop(s), self = pop(s);
  broadcast_mask(mask.to_tensor(), self.to_tensor());
  push_in_place(s, self,
                masked_fill_impl(self.to_tensor(), mask.to_tensor(), value_of(value.to_tensor())));
}

// fill_.Scalar / fill_.Tensor: every element of self set to the value (masked_fill_ under a
// mask that is true everywhere).
Tensor filled(const Tensor& self, const IValue& value) {
  Tensor everywhere = Tensor::uninitialized({}, DType::kBool);
  everywhere.mutable_data<bool>()[0] = true;
  return masked_fill_impl(self, everywhere, value);
}
void fill__scalar(Stack& s) {
  IValue value = pop(s), self = pop(s);
  push_in_place(s, self, filled(self.to_tensor(), value));
}
// zero_(Tensor self): fill_ with 0 (swin_v2's attention mask).
void zero_(Stack& s) {
  IValue self = pop(s);
  push_in_place(s, self, filled(self.to_tensor(), IValue(std::int64_t{0})));
}
void fill__tensor(Stack& s) {
  IValue value = pop(s), self = pop(s);
  if (value.to_tensor().dim() != 0) {
    fail(fmt::format(
        "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
        value.to_tensor().dim()));
  }
  push_in_place(s, self, filled(self.to_tensor(), value_of(value.to_tensor())));
}

// masked_scatter(self, mask, source): self where the mask is not set; where it is, source's
// elements in order (row-major). Out of place, self and mask broadcast together; in place, the
// mask broadcasts to self.
Tensor masked_scatter_impl(const Tensor& self, const IValue& mask_v, const Tensor& source,
                           bool in_place) {
  // In place the dtypes are checked first; out of place, after the broadcast. (PyTorch's
  // message lacks a space after "got".)
  const auto check_dtypes = [&] {
    if (self.dtype() != source.dtype()) {
      fail(fmt::format(
          "masked_scatter: expected self and source to have same dtypes but got{} and {}",
          tensor::scalar_type_name(self.dtype()), tensor::scalar_type_name(source.dtype())));
    }
  };
  if (in_place) check_dtypes();
  const Tensor& m = mask_v.to_tensor();
  if (in_place && m.dim() > self.dim()) {  // PyTorch's expand_inplace names the type this way
    fail(
        fmt::format("expand(CPU{}Type{{{}}}, size={}): the number of sizes provided ({}) must be "
                    "greater or equal to the number of dimensions in the tensor ({})",
                    tensor::scalar_type_name(m.dtype()), tensor::format_sizes(m.sizes()),
                    tensor::format_sizes(self.sizes()), self.dim(), m.dim()));
  }
  const Sizes sizes = in_place ? self.sizes() : broadcast_mask(m, self);
  const Tensor mask =
      run_op("aten::expand", {mask_v, int_list_value(sizes), IValue(false)}).to_tensor();
  check_dtypes();
  const Tensor set = to_dtype(mask, DType::kBool).contiguous();
  const Tensor src = source.contiguous();
  Tensor out = Tensor::uninitialized(sizes, self.dtype());
  copy_into(
      out,
      run_op("aten::expand", {IValue(self), int_list_value(sizes), IValue(false)}).to_tensor());
  const bool* where = set.data<bool>();
  dispatch_all(self.dtype(), "masked_scatter", [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.template mutable_data<T>();
    const T* from = src.template data<T>();
    std::int64_t taken = 0;
    for (std::int64_t i = 0; i < out.numel(); ++i) {
      if (!where[i]) continue;
      if (taken >= src.numel()) fail("Number of elements of source < number of ones in mask");
      dst[i] = from[taken++];
    }
  });
  return out;
}

void masked_scatter(Stack& s) {
  IValue source = pop(s), mask = pop(s), self = pop(s);
  s.emplace_back(masked_scatter_impl(self.to_tensor(), mask, source.to_tensor(), false));
}
void masked_scatter_(Stack& s) {
  IValue source = pop(s), mask = pop(s), self = pop(s);
  push_in_place(s, self, masked_scatter_impl(self.to_tensor(), mask, source.to_tensor(), true));
}

}  // namespace

void register_masking_ops(OperatorRegistry& r) {
  r.add({"aten::fill_.Scalar", 2, {}, fill__scalar});
  r.add({"aten::fill_.Tensor", 2, {}, fill__tensor});
  r.add({"aten::zero_", 1, {}, zero_});
  r.add({"aten::masked_fill.Scalar", 3, {}, masked_fill_scalar});
  r.add({"aten::masked_fill.Tensor", 3, {}, masked_fill_tensor});
  r.add({"aten::masked_fill_.Scalar", 3, {}, masked_fill__scalar});
  r.add({"aten::masked_fill_.Tensor", 3, {}, masked_fill__tensor});
  r.add({"aten::masked_scatter", 3, {}, masked_scatter});
  r.add({"aten::masked_scatter_", 3, {}, masked_scatter_});
}

}  // namespace symbolite::ops
