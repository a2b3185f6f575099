// Reading and writing along one dimension at positions an index tensor gives: gather,
// take_along_dim, scatter (a source tensor or a value; "add" and "multiply" reductions;
// scatter_reduce's sum, prod, mean, amax and amin),
// scatter_add, index_add, index_copy, index_fill and their in-place forms, and one_hot. Indices are
// int64 and not wrapped (a negative one is out of bounds; index_fill wraps them), with PyTorch
// 1.13's checks and messages.
// Writes go in the index tensor's row-major order, so of two writes to one place the later stays.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/index_reduction.h"
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

std::string sizes_of(const Tensor& t) { return tensor::format_sizes(t.sizes()); }

// Size of dimension d, a 0-dim tensor counting as one element.
std::int64_t size_at(const Tensor& t, std::int64_t d) {
  return t.dim() == 0 ? 1 : t.sizes()[static_cast<std::size_t>(d)];
}
std::int64_t stride_at(const Tensor& t, std::int64_t d) {
  return t.dim() == 0 ? 0 : t.strides()[static_cast<std::size_t>(d)];
}
std::int64_t rank(const Tensor& t) { return std::max<std::int64_t>(t.dim(), 1); }

void check_index(const Tensor& index, const char* op) {
  if (index.dtype() != DType::kInt64) {
    fail(fmt::format("{}(): Expected dtype int64 for index", op));
  }
}

// Calls visit(index value, offset in `at` with the dim's stride left out, offset in `other`)
// for every element of `index` in row-major order. `at` and `other` (may be `at`) are read at
// the index's positions.
template <typename Visit>
void walk_index(const Tensor& index, const Tensor& at, std::int64_t dim, const Tensor& other,
                Visit visit) {
  const std::int64_t n = rank(index);
  Ints sizes(static_cast<std::size_t>(n)), si(sizes.size()), sa(sizes.size()), so(sizes.size());
  for (std::int64_t d = 0; d < n; ++d) {
    const auto k = static_cast<std::size_t>(d);
    sizes[k] = size_at(index, d);
    si[k] = stride_at(index, d);
    sa[k] = d == dim ? 0 : stride_at(at, d);
    so[k] = stride_at(other, d);
  }
  const std::int64_t* idx = index.data<std::int64_t>();
  std::array<const std::int64_t*, 3> strides{si.data(), sa.data(), so.data()};
  for_each_offset<3>(sizes, strides,
                     [&](const std::array<std::int64_t, 3>& o) { visit(idx[o[0]], o[1], o[2]); });
}

[[noreturn]] void out_of_bounds(std::int64_t i, std::int64_t dim, std::int64_t size) {
  fail(fmt::format("index {} is out of bounds for dimension {} with size {}", i, dim, size));
}

// Pushes the result of an operator with an in-place form: into self (kInPlace) or as is.
template <bool kInPlace>
void push_result(Stack& s, const IValue& self, Tensor out) {
  if constexpr (kInPlace) {
    push_in_place(s, self, out);
  } else {
    s.emplace_back(std::move(out));
  }
}

// gather(self, dim, index, *, sparse_grad=False): out[..i..] = self[..index[..i..]..] at dim.
Tensor gather_impl(const Tensor& self, std::int64_t dim_arg, const Tensor& index) {
  const std::int64_t dim = wrap_dim(dim_arg, self.dim());
  check_index(index, "gather");
  if (index.dim() != 0 && rank(index) != rank(self)) {
    fail("Index tensor must have the same number of dimensions as input tensor");
  }
  if (index.dim() != 0) {
    for (std::int64_t d = 0; d < rank(self); ++d) {
      if (d != dim && size_at(index, d) > size_at(self, d)) {
        fail(
            fmt::format("Size does not match at dimension {} expected index {} to be smaller "
                        "than self {} apart from dimension {}",
                        d, sizes_of(index), sizes_of(self), dim));
      }
    }
  }
  Tensor out = Tensor::uninitialized(index.sizes(), self.dtype());
  if (index.numel() == 0) return out;
  const std::int64_t bound = size_at(self, dim), step = stride_at(self, dim);
  const Tensor dense = out;  // contiguous: its strides walk the index's shape
  dispatch_all(self.dtype(), "gather_out_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* src = self.template data<T>();
    T* dst = out.template mutable_data<T>();
    walk_index(index, self, dim, dense, [&](std::int64_t i, std::int64_t from, std::int64_t to) {
      if (i < 0 || i >= bound) out_of_bounds(i, dim, bound);
      dst[to] = src[from + i * step];
    });
  });
  return out;
}

void gather(Stack& s) {
  IValue sparse = pop(s), index = pop(s), dim = pop(s), self = pop(s);
  (void)sparse;
  s.emplace_back(gather_impl(self.to_tensor(), dim.to_int(), index.to_tensor()));
}

// take_along_dim(self, indices, dim=None): gather with both broadcast apart from dim; without
// dim, over the flattened tensor.
void take_along_dim(Stack& s) {
  IValue dim_v = pop(s), indices_v = pop(s), self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  const Tensor& indices = indices_v.to_tensor();
  if (indices.dtype() != DType::kInt64) {
    fail(fmt::format("torch.take_along_dim(): dtype of indices should be Long but got {}",
                     tensor::scalar_type_name(indices.dtype())));
  }
  if (dim_v.is_none()) {
    IValue flat_self = run_op("aten::reshape", {self_v, int_list_value({-1})});
    IValue flat_index = run_op("aten::reshape", {indices_v, int_list_value({-1})});
    s.emplace_back(gather_impl(flat_self.to_tensor(), 0, flat_index.to_tensor()));
    return;
  }
  if (self.dim() != indices.dim()) {
    fail(
        fmt::format("torch.take_along_dim(): input and indices should have the same number of "
                    "dimensions, but got {} dimensions for input, and {} dimensions for indices",
                    self.dim(), indices.dim()));
  }
  const std::int64_t dim = wrap_dim(dim_v.to_int(), self.dim());
  Ints self_sizes = self.sizes(), index_sizes = indices.sizes();
  self_sizes[static_cast<std::size_t>(dim)] = 1;
  index_sizes[static_cast<std::size_t>(dim)] = 1;
  Ints shape = tensor::broadcast_shapes(self_sizes, index_sizes);
  Ints self_shape = shape, index_shape = shape;
  self_shape[static_cast<std::size_t>(dim)] = self.sizes()[static_cast<std::size_t>(dim)];
  index_shape[static_cast<std::size_t>(dim)] = indices.sizes()[static_cast<std::size_t>(dim)];
  IValue a = run_op("aten::expand", {self_v, int_list_value(self_shape)});
  IValue b = run_op("aten::expand", {indices_v, int_list_value(index_shape)});
  s.emplace_back(gather_impl(a.to_tensor(), dim, b.to_tensor()));
}

enum class Reduce { kNone, kAdd, kMultiply };

Reduce reduce_arg(const IValue& v) {
  const std::string& name = v.to_string();
  if (name == "add" || name == "sum") return Reduce::kAdd;
  if (name == "multiply") return Reduce::kMultiply;
  fail(fmt::format("reduce argument must be either add or multiply."));
}

// scatter's checks (index dtype, src dtype, ranks and sizes) with PyTorch's messages; the
// wrapped dim.
std::int64_t check_scatter(const Tensor& self, std::int64_t dim_arg, const Tensor& index,
                           const Tensor* src, const char* op) {
  const std::int64_t dim = wrap_dim(dim_arg, self.dim());
  check_index(index, op);
  if (src != nullptr && src->dtype() != self.dtype()) {
    fail(fmt::format("{}(): Expected self.dtype to be equal to src.dtype", op));
  }
  if (index.dim() != 0 && rank(index) != rank(self)) {
    fail("Index tensor must have the same number of dimensions as self tensor");
  }
  if (src != nullptr && index.dim() != 0 && rank(index) != rank(*src)) {
    fail("Index tensor must have the same number of dimensions as src tensor");
  }
  if (index.dim() != 0) {
    for (std::int64_t d = 0; d < rank(self); ++d) {
      const bool too_big = (d != dim && size_at(index, d) > size_at(self, d)) ||
                           (src != nullptr && size_at(index, d) > size_at(*src, d));
      if (too_big && src != nullptr) {
        fail(
            fmt::format("Expected index {} to be smaller than self {} apart from dimension {} "
                        "and to be smaller size than src {}",
                        sizes_of(index), sizes_of(self), dim, sizes_of(*src)));
      }
      if (too_big) {
        fail(fmt::format("Expected index {} to be smaller than self {} apart from dimension {}",
                         sizes_of(index), sizes_of(self), dim));
      }
    }
  }
  return dim;
}

// self with index's positions along dim written from src (a tensor of self's dtype, read at
// the index's positions) or set to `value`, combined as `reduce` says.
Tensor scatter_impl(const Tensor& self, std::int64_t dim_arg, const Tensor& index,
                    const Tensor* src, const IValue* value, Reduce reduce, const char* op) {
  const std::int64_t dim = check_scatter(self, dim_arg, index, src, op);
  Tensor out = Tensor::uninitialized(self.sizes(), self.dtype());
  copy_into(out, self);
  if (index.numel() == 0) return out;
  const std::int64_t bound = size_at(out, dim), step = stride_at(out, dim);
  const Tensor from = src != nullptr ? *src : index;
  dispatch_all(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.template mutable_data<T>();
    const T fill = value != nullptr ? checked_value<T>(*value) : T{};
    const T* data = src != nullptr ? src->template data<T>() : nullptr;
    walk_index(index, out, dim, from, [&](std::int64_t i, std::int64_t at, std::int64_t read) {
      if (i < 0 || i >= bound) out_of_bounds(i, dim, bound);
      const T v = data != nullptr ? data[read] : fill;
      T& place = dst[at + i * step];
      if constexpr (std::is_same_v<T, bool>) {
        place = reduce == Reduce::kAdd        ? (place || v)
                : reduce == Reduce::kMultiply ? (place && v)
                                              : v;
      } else {
        place = reduce == Reduce::kAdd        ? static_cast<T>(place + v)
                : reduce == Reduce::kMultiply ? static_cast<T>(place * v)
                                              : v;
      }
    });
  });
  return out;
}

// scatter.src / scatter.value / scatter_add, out of place and (with kInPlace) in place.
template <bool kInPlace>
void scatter_src(Stack& s) {
  IValue src = pop(s), index = pop(s), dim = pop(s), self = pop(s);
  const Tensor& from = src.to_tensor();
  Tensor out = scatter_impl(self.to_tensor(), dim.to_int(), index.to_tensor(), &from, nullptr,
                            Reduce::kNone, "scatter");
  push_result<kInPlace>(s, self, std::move(out));
}

template <bool kInPlace>
void scatter_value(Stack& s) {
  IValue value = pop(s), index = pop(s), dim = pop(s), self = pop(s);
  Tensor out = scatter_impl(self.to_tensor(), dim.to_int(), index.to_tensor(), nullptr, &value,
                            Reduce::kNone, "scatter");
  push_result<kInPlace>(s, self, std::move(out));
}

template <bool kInPlace>
void scatter_reduce_src(Stack& s) {
  IValue reduce = pop(s), src = pop(s), index = pop(s), dim = pop(s), self = pop(s);
  const Tensor& from = src.to_tensor();
  Tensor out = scatter_impl(self.to_tensor(), dim.to_int(), index.to_tensor(), &from, nullptr,
                            reduce_arg(reduce), "scatter");
  push_result<kInPlace>(s, self, std::move(out));
}

template <bool kInPlace>
void scatter_reduce_value(Stack& s) {
  IValue reduce = pop(s), value = pop(s), index = pop(s), dim = pop(s), self = pop(s);
  Tensor out = scatter_impl(self.to_tensor(), dim.to_int(), index.to_tensor(), nullptr, &value,
                            reduce_arg(reduce), "scatter");
  push_result<kInPlace>(s, self, std::move(out));
}

template <bool kInPlace>
void scatter_add(Stack& s) {
  IValue src = pop(s), index = pop(s), dim = pop(s), self = pop(s);
  const Tensor& from = src.to_tensor();
  Tensor out = scatter_impl(self.to_tensor(), dim.to_int(), index.to_tensor(), &from, nullptr,
                            Reduce::kAdd, "scatter_add");
  push_result<kInPlace>(s, self, std::move(out));
}

// scatter_reduce.two(self, dim, index, src, reduce, include_self=True): src's elements
// combined into self's places along dim by "sum", "prod", "mean", "amax" or "amin", in the
// index's row-major order. Without include_self the places written start from the reduction's
// identity; "mean" divides by how many values each place got (self counting one when
// included), integers rounding down.
Tensor scatter_reduce_two(const Tensor& self, std::int64_t dim_arg, const Tensor& index,
                          const Tensor& src, const std::string& reduce, bool include_self) {
  const std::optional<IndexReduction> how = index_reduction_named(reduce);
  if (!how) fail("reduce argument must be either sum, prod, mean, amax or amin.");
  const std::int64_t dim = check_scatter(self, dim_arg, index, &src, "scatter");
  Tensor out = Tensor::uninitialized(self.sizes(), self.dtype());
  copy_into(out, self);
  if (index.numel() == 0) return out;
  if (how == IndexReduction::kMean && self.dtype() == DType::kBool) {
    not_implemented("scatter_gather_tensor_cpu_reduce_mean", self.dtype());
  }
  const std::int64_t bound = size_at(out, dim), step = stride_at(out, dim);
  std::vector<std::int64_t> count(static_cast<std::size_t>(out.numel()), include_self ? 1 : 0);
  dispatch_all(self.dtype(), "scatter_reduce", [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.template mutable_data<T>();
    const T* from = src.template data<T>();
    if (!include_self) {  // the places written start from the identity
      walk_index(index, out, dim, src, [&](std::int64_t i, std::int64_t at, std::int64_t) {
        if (i < 0 || i >= bound) out_of_bounds(i, dim, bound);
        dst[at + i * step] = reduction_identity<T>(*how);
      });
    }
    walk_index(index, out, dim, src, [&](std::int64_t i, std::int64_t at, std::int64_t read) {
      if (i < 0 || i >= bound) out_of_bounds(i, dim, bound);
      dst[at + i * step] = reduce_into(*how, dst[at + i * step], from[read]);
      ++count[static_cast<std::size_t>(at + i * step)];
    });
    if (how == IndexReduction::kMean) {
      for (std::int64_t k = 0; k < out.numel(); ++k) {
        dst[k] = mean_of(dst[k], count[static_cast<std::size_t>(k)]);
      }
    }
  });
  return out;
}

template <bool kInPlace>
void scatter_reduce_two_op(Stack& s) {
  IValue include_self = pop(s), reduce = pop(s), src = pop(s), index = pop(s), dim = pop(s),
         self = pop(s);
  Tensor out = scatter_reduce_two(self.to_tensor(), dim.to_int(), index.to_tensor(),
                                  src.to_tensor(), reduce.to_string(), include_self.to_bool());
  push_result<kInPlace>(s, self, std::move(out));
}

// one_hot(self, num_classes=-1): int64 self gives int64 of self's shape plus num_classes, one
// where the class is (num_classes -1: the largest class + 1).
void one_hot(Stack& s) {
  IValue classes_v = pop(s), self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  std::int64_t classes = classes_v.to_int();
  if (self.dtype() != DType::kInt64) fail("one_hot is only applicable to index tensor.");
  const Tensor x = self.contiguous();
  const std::int64_t* v = x.data<std::int64_t>();
  const std::int64_t n = x.numel();
  if (n == 0) {
    if (classes <= 0) fail("Can not infer total number of classes from empty tensor.");
  } else {
    const auto [lo, hi] = std::minmax_element(v, v + n);
    if (*lo < 0) fail("Class values must be non-negative.");
    if (classes == -1) {
      classes = *hi + 1;
    } else if (*hi >= classes) {
      fail("Class values must be smaller than num_classes.");
    }
  }
  Ints sizes = x.sizes();
  sizes.push_back(classes);
  Tensor out = Tensor::empty(sizes, DType::kInt64);
  std::int64_t* dst = out.mutable_data<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) dst[i * classes + v[i]] = 1;
  s.emplace_back(std::move(out));
}

// index_add / index_copy / index_fill: along dim, slice index[i] of self takes slice i of
// source (added, times alpha; copied) or the value. Index is 1-D (or 0-D) int64;
// index_fill wraps negative indices, the others do not.
enum class IndexWrite { kAdd, kCopy, kFill };

Tensor index_write(const Tensor& self, std::int64_t dim_arg, const Tensor& index,
                   const Tensor* source, const IValue& value, IndexWrite how, const char* op) {
  const std::int64_t dim = self.dim() == 0 ? 0 : wrap_dim(dim_arg, self.dim());
  if (index.dim() > 1) fail(fmt::format("{}(): Index is supposed to be a vector", op));
  if (index.dtype() != DType::kInt64) {
    fail(fmt::format("{}(): Expected dtype int64 for index", op));
  }
  if (source != nullptr && source->dtype() != self.dtype()) {
    fail(fmt::format("{}(): self ({}) and source ({}) must have the same scalar type", op,
                     tensor::scalar_type_name(self.dtype()),
                     tensor::scalar_type_name(source->dtype())));
  }
  const Tensor idx = index.contiguous();
  const std::int64_t n = idx.numel();
  const std::int64_t size = size_at(self, dim);
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < self.dim(); ++d) {
    if (d < dim) outer *= self.sizes()[static_cast<std::size_t>(d)];
    if (d > dim) inner *= self.sizes()[static_cast<std::size_t>(d)];
  }
  Tensor src;
  if (source != nullptr) {
    Ints want = self.sizes();
    if (!want.empty()) want[static_cast<std::size_t>(dim)] = n;
    const bool fits = self.dim() == 0 ? source->numel() == n : source->sizes() == want;
    if (!fits) {
      fail(
          fmt::format("{}(): Source/destination tensor must have same slice shapes. Destination "
                      "slice shape: {} at dimension {} and source slice shape: {} at dimension {}.",
                      op, sizes_of(self), dim, sizes_of(*source), dim));
    }
    src = source->contiguous();
  }
  Tensor out = Tensor::uninitialized(self.sizes(), self.dtype());
  copy_into(out, self);
  const std::int64_t* at = idx.data<std::int64_t>();
  dispatch_all(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.template mutable_data<T>();
    const T* from = source != nullptr ? src.template data<T>() : nullptr;
    const T fill = how == IndexWrite::kFill ? checked_value<T>(value) : T{};
    const T alpha = how == IndexWrite::kAdd ? checked_value<T>(value) : T{};
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t target = at[i];
      if (how == IndexWrite::kFill && target < 0 && target >= -size) target += size;
      if (target < 0 || target >= size) {
        if (how == IndexWrite::kAdd) throw OpError("IndexError", "index out of range in self");
        if (how == IndexWrite::kFill) {
          throw OpError("IndexError", fmt::format("index {} is out of bounds for dimension {} with "
                                                  "size {}",
                                                  at[i], dim, size));
        }
        fail(fmt::format("{}(): index {} is out of bounds for dimension {} with size {}", op, at[i],
                         dim, size));
      }
      for (std::int64_t o = 0; o < outer; ++o) {
        T* row = dst + (o * size + target) * inner;
        const T* in = from != nullptr ? from + (o * n + i) * inner : nullptr;
        for (std::int64_t k = 0; k < inner; ++k) {
          if (how == IndexWrite::kFill) {
            row[k] = fill;
          } else if (how == IndexWrite::kCopy) {
            row[k] = in[k];
          } else if constexpr (std::is_same_v<T, bool>) {
            row[k] = row[k] || (alpha && in[k]);
          } else {
            row[k] = static_cast<T>(row[k] + alpha * in[k]);
          }
        }
      }
    }
  });
  return out;
}

template <bool kInPlace>
void index_add(Stack& s) {
  IValue alpha = pop(s), source = pop(s), index = pop(s), dim = pop(s), self = pop(s);
  const Tensor& from = source.to_tensor();
  Tensor out = index_write(self.to_tensor(), dim.to_int(), index.to_tensor(), &from, alpha,
                           IndexWrite::kAdd, "index_add");
  push_result<kInPlace>(s, self, std::move(out));
}

template <bool kInPlace>
void index_copy(Stack& s) {
  IValue source = pop(s), index = pop(s), dim = pop(s), self = pop(s);
  const Tensor& from = source.to_tensor();
  Tensor out = index_write(self.to_tensor(), dim.to_int(), index.to_tensor(), &from, IValue(),
                           IndexWrite::kCopy, "index_copy");
  push_result<kInPlace>(s, self, std::move(out));
}

// index_fill.int_Scalar / .int_Tensor (a 0-dim value tensor).
template <bool kInPlace>
void index_fill(Stack& s) {
  IValue value = pop(s), index = pop(s), dim = pop(s), self = pop(s);
  if (value.is(IValue::Kind::kTensor)) {
    const Tensor& v = value.to_tensor();
    if (v.dim() != 0) {
      fail(
          fmt::format("index_fill_ only supports a 0-dimensional value tensor, but got tensor "
                      "with {} dimension(s).",
                      v.dim()));
    }
    value = run_op("aten::item", {value});
  }
  Tensor out = index_write(self.to_tensor(), dim.to_int(), index.to_tensor(), nullptr, value,
                           IndexWrite::kFill, "index_fill_");
  push_result<kInPlace>(s, self, std::move(out));
}

}  // namespace

void register_gather_scatter_ops(OperatorRegistry& r) {
  IValue no(false);
  r.add({"aten::gather", 4, {no}, gather});
  r.add({"aten::take_along_dim", 3, {IValue()}, take_along_dim});
  r.add({"aten::scatter.src", 4, {}, scatter_src<false>});
  r.add({"aten::scatter_.src", 4, {}, scatter_src<true>});
  r.add({"aten::scatter.value", 4, {}, scatter_value<false>});
  r.add({"aten::scatter_.value", 4, {}, scatter_value<true>});
  r.add({"aten::scatter.reduce", 5, {}, scatter_reduce_src<false>});
  r.add({"aten::scatter_.reduce", 5, {}, scatter_reduce_src<true>});
  r.add({"aten::scatter.value_reduce", 5, {}, scatter_reduce_value<false>});
  r.add({"aten::scatter_.value_reduce", 5, {}, scatter_reduce_value<true>});
  r.add({"aten::scatter_add", 4, {}, scatter_add<false>});
  r.add({"aten::scatter_add_", 4, {}, scatter_add<true>});
  r.add({"aten::scatter_reduce.two", 6, {IValue(true)}, scatter_reduce_two_op<false>});
  r.add({"aten::scatter_reduce_.two", 6, {IValue(true)}, scatter_reduce_two_op<true>});
  r.add({"aten::one_hot", 2, {IValue(std::int64_t{-1})}, one_hot});
  const IValue one(std::int64_t{1});
  r.add({"aten::index_add", 5, {one}, index_add<false>});
  r.add({"aten::index_add_", 5, {one}, index_add<true>});
  r.add({"aten::index_copy", 4, {}, index_copy<false>});
  r.add({"aten::index_copy_", 4, {}, index_copy<true>});
  for (const char* overload : {"int_Scalar", "int_Tensor"}) {
    r.add({std::string("aten::index_fill.") + overload, 4, {}, index_fill<false>});
    r.add({std::string("aten::index_fill_.") + overload, 4, {}, index_fill<true>});
  }
}

}  // namespace symbolite::ops
