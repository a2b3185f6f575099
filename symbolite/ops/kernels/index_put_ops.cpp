// Writing through an advanced index: index_put and index_put_ (`x[mask] = 0`, `x[idx] = v`,
// `x[i, j] += v` with accumulate). The places are found by indexing a tensor of element
// offsets with the same indices (aten::index.Tensor: its checks, messages and order), so they
// are exactly the elements `x[indices]` reads; values broadcast to that shape and are written
// in its row-major order (a repeated place keeps the last write, or sums with accumulate).
#include <array>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// A copy of self with values written at self[indices].
Tensor index_put_impl(const Tensor& self, const IValue& indices, const Tensor& values,
                      bool accumulate) {
  if (values.dtype() != self.dtype()) {
    fail(fmt::format(
        "Index put requires the source and destination dtypes match, got {} for "
        "the destination and {} for the source.",
        tensor::scalar_type_name(self.dtype()), tensor::scalar_type_name(values.dtype())));
  }
  Tensor out = Tensor::uninitialized(self.sizes(), self.dtype());
  copy_into(out, self);
  // The offset of every element of `out` (contiguous), indexed as self would be.
  Tensor offsets = Tensor::uninitialized(self.sizes(), DType::kInt64);
  std::int64_t* o = offsets.mutable_data<std::int64_t>();
  for (std::int64_t i = 0; i < offsets.numel(); ++i) o[i] = i;
  const Tensor places =
      run_op("aten::index.Tensor", {IValue(offsets), indices}).to_tensor().contiguous();
  // values broadcast to the places' shape: aligned at the end, each size equal or 1.
  const std::vector<std::int64_t>& shape = places.sizes();
  bool fits = values.dim() <= places.dim();
  for (std::int64_t k = 1; fits && k <= values.dim(); ++k) {
    const std::int64_t v = values.sizes()[static_cast<std::size_t>(values.dim() - k)];
    fits = v == 1 || v == shape[static_cast<std::size_t>(places.dim() - k)];
  }
  if (!fits) {
    fail(
        fmt::format("shape mismatch: value tensor of shape {} cannot be broadcast to indexing "
                    "result of shape {}",
                    tensor::format_sizes(values.sizes()), tensor::format_sizes(places.sizes())));
  }
  if (places.numel() == 0) return out;
  const std::vector<std::int64_t> value_strides = broadcast_strides(values, shape);
  const std::vector<std::int64_t> place_strides = tensor::contiguous_strides(shape);
  const std::int64_t* at = places.data<std::int64_t>();
  dispatch_all(self.dtype(), "index_put", [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.template mutable_data<T>();
    const T* src = values.template data<T>();
    std::array<const std::int64_t*, 2> strides{place_strides.data(), value_strides.data()};
    for_each_offset<2>(shape, strides, [&](const std::array<std::int64_t, 2>& k) {
      T& place = dst[at[k[0]]];
      if constexpr (std::is_same_v<T, bool>) {
        place = accumulate ? (place || src[k[1]]) : src[k[1]];
      } else {
        place = accumulate ? static_cast<T>(place + src[k[1]]) : src[k[1]];
      }
    });
  });
  return out;
}

// index_put(self, indices, values, accumulate=False)
void index_put(Stack& s) {
  IValue accumulate = pop(s), values = pop(s), indices = pop(s), self = pop(s);
  s.emplace_back(
      index_put_impl(self.to_tensor(), indices, values.to_tensor(), accumulate.to_bool()));
}

// index_put_(self, indices, values, accumulate=False): into self.
void index_put_(Stack& s) {
  IValue accumulate = pop(s), values = pop(s), indices = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  check_no_internal_overlap(t);
  push_in_place(s, self, index_put_impl(t, indices, values.to_tensor(), accumulate.to_bool()));
}

}  // namespace

void register_index_put_ops(OperatorRegistry& r) {
  const IValue no(false);
  r.add({"aten::index_put", 4, {no}, index_put});
  r.add({"aten::index_put_", 4, {no}, index_put_});
  r.add({"aten::index_put.hacked_twin", 4, {no}, index_put});
  r.add({"aten::index_put_.hacked_twin", 4, {no}, index_put_});
}

}  // namespace symbolite::ops
