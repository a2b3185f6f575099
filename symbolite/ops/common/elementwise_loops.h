// The loops of elementwise kernels, shared by the families that compute element by element
// (elementwise_ops, math_ops, logical_ops): a broadcasting binary loop, a unary loop, and
// pushing the result of an in-place op.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/element_runs.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/support/parallel_for.h"
#include "symbolite/tensor/broadcast.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

// Contiguous element loops split across threads in ranges of at least this many elements
// (support/parallel_for.h); every element is computed alone, so results do not depend on
// the thread count. Small enough that a 14x14 or 7x7 layer's tensor (50-100 thousand
// elements) still splits: each thread then reads the half its own core's cache holds from
// the operator before (65536 left a squeeze-and-excitation scale on one thread, slower at two
// threads than at one).
inline constexpr std::int64_t kElementsPerThread = 16384;

// Whether `a op= b` can be computed into a's own elements in one pass: a writable, contiguous,
// of the result's dtype T; b of dtype T, either a's shape and contiguous or one element with
// no more dimensions (so the result has a's shape); and b not another view of a's memory (a
// itself is fine: each element reads only its own). Else in-place operators compute a new
// result and copy it in.
template <typename T>
bool writes_into_self(const tensor::Tensor& a, const tensor::Tensor& b) {
  constexpr tensor::DType dtype = tensor::dtype_of<T>;
  if (a.dtype() != dtype || b.dtype() != dtype || !a.is_contiguous() || a.storage().is_view()) {
    return false;
  }
  const bool same_shape = b.sizes() == a.sizes() && b.is_contiguous();
  // One element broadcasts to a's shape only with no more dimensions than a.
  if (!same_shape && (b.numel() != 1 || b.dim() > a.dim())) return false;
  if (b.storage().data() != a.storage().data()) return true;
  return same_shape && b.storage_offset() == a.storage_offset();
}

// Operands of an out-of-place binary op that nothing but the op refers to (moved onto the
// stack by their last use: IValue::holds_unshared_tensor, asked before the operands were
// copied out of their IValues). The result may be written over one of them: no new buffer,
// and the values are still in cache (an SE block's `scale * x` writes over x).
struct SpareOperands {
  bool a = false;
  bool b = false;
};

// Whether the result (dtype T, `shape`) can be written over `x`, a spare operand: x of dtype T
// and the result's shape, contiguous and writable. Each result element then reads only x's
// element at its own position, so writing it there loses nothing another element needs. (A
// nested tensor is not written over: a new result drops its marker.)
template <typename T>
bool can_write_over(const tensor::Tensor& x, const std::vector<std::int64_t>& shape) {
  return x.dtype() == tensor::dtype_of<T> && x.sizes() == shape && x.is_contiguous() &&
         !x.storage().is_view() && x.nested_lengths() == nullptr;
}

// Calls `row(offsets, n, steps)` for each row of N operands over `sizes` (operand k's element
// offsets in offsets[k], its strides in strides[k]), rows split across threads: dimensions
// every operand walks as one are merged first (coalesce_dims), and a row is the innermost
// merged dimension, n elements with operand k's elements steps[k] apart (0 for a broadcast
// operand, 1 for a contiguous run).
template <std::size_t N, typename F>
void for_each_row(std::vector<std::int64_t> sizes, std::array<std::vector<std::int64_t>, N> strides,
                  F&& row) {
  std::int64_t total = 1;
  for (std::int64_t size : sizes) total *= size;
  if (total == 0) return;
  coalesce_dims<N>(sizes, strides);
  const std::int64_t n = sizes.back();
  std::array<std::int64_t, N> steps{};
  std::array<const std::int64_t*, N> outer{};
  for (std::size_t k = 0; k < N; ++k) {
    steps[k] = strides[k].back();
    outer[k] = strides[k].data();
  }
  sizes.back() = 1;
  parallel_for(total / n, std::max<std::int64_t>(1, kElementsPerThread / n),
               [&](std::int64_t begin, std::int64_t end) {
                 for_each_offset_in<N>(
                     sizes, outer, begin, end - begin,
                     [&](const std::array<std::int64_t, N>& offsets) { row(offsets, n, steps); });
               });
}

// out[i] = op(a[i], b[i]) over the broadcast shape, computing in T (a and b are converted
// first when their dtype differs); the result's dtype is that of op's return type. Callers
// dispatch on the dtype once and name T: a dispatch in here too would compile the loops for
// every pair of dtypes. With `in_place` (an in-place operator: `a op= b`), the result is
// written into a and a returned where writes_into_self allows it; else over a `spare`
// operand where can_write_over allows it, else into a new tensor.
template <typename T, typename Op>
tensor::Tensor binary_kernel(const tensor::Tensor& a0, const tensor::Tensor& b0, Op&& op,
                             bool in_place = false, SpareOperands spare = {}) {
  using tensor::Tensor;
  using Out = decltype(op(T{}, T{}));
  constexpr tensor::DType compute = tensor::dtype_of<T>;
  if constexpr (std::is_same_v<Out, T>) {
    if (in_place && writes_into_self<T>(a0, b0)) {
      T* self = a0.template mutable_data<T>();
      const T* other = b0.template data<T>();
      const bool one = b0.sizes() != a0.sizes();
      parallel_for(a0.numel(), kElementsPerThread, [&](std::int64_t begin, std::int64_t end) {
        if (one) {
          const T y = *other;
          cpu::map_run(self + begin, self + begin, end - begin, [&op, y](T v) { return op(v, y); });
        } else {
          cpu::zip_run(self + begin, other + begin, self + begin, end - begin, op);
        }
      });
      return a0;
    }
  }
  std::vector<std::int64_t> shape = tensor::broadcast_shapes(a0.sizes(), b0.sizes());
  Tensor a = a0.dtype() == compute ? a0 : to_dtype(a0, compute);
  Tensor b = b0.dtype() == compute ? b0 : to_dtype(b0, compute);
  Tensor out = [&] {
    if constexpr (std::is_same_v<Out, T>) {
      if (spare.a && can_write_over<T>(a0, shape)) return a0;
      if (spare.b && can_write_over<T>(b0, shape)) return b0;
    }
    return Tensor::uninitialized(shape, tensor::dtype_of<Out>);
  }();
  Out* dst = out.template mutable_data<Out>();
  const T* pa = a.template data<T>();
  const T* pb = b.template data<T>();
  if (a.is_contiguous() && b.is_contiguous() && a.sizes() == shape && b.sizes() == shape) {
    parallel_for(out.numel(), kElementsPerThread, [&](std::int64_t begin, std::int64_t end) {
      cpu::zip_run(pa + begin, pb + begin, dst + begin, end - begin, op);
    });
    return out;
  }
  if (out.numel() == 0) return out;
  auto so = tensor::contiguous_strides(shape);
  std::vector<std::int64_t> sizes = shape;
  std::array<std::vector<std::int64_t>, 3> st{so, broadcast_strides(a, shape),
                                              broadcast_strides(b, shape)};
  // An operand read across its contiguous dimension (x * scale on x.permute(0, 3, 1, 2): the
  // result's rows run along W, x's along C): that dimension moves just outside the innermost,
  // so the cache lines one row gathers from are those the next rows read too.
  const std::size_t inner_dim = sizes.size() - 1;
  for (std::size_t k = 1; k < 3 && sizes.size() > 2; ++k) {
    if (st[k][inner_dim] == 0 || st[k][inner_dim] == 1) continue;
    for (std::size_t d = 0; d + 1 < inner_dim; ++d) {
      if (st[k][d] != 1 || sizes[d] == 1) continue;
      const auto move = [&](std::vector<std::int64_t>& v) {
        const std::int64_t value = v[d];
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(d));
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(inner_dim - 1), value);
      };
      move(sizes);
      for (auto& strides : st) move(strides);
      break;
    }
    break;
  }
  coalesce_dims<3>(sizes, st);
  // The innermost dimension as a plain loop (vectorizable when an operand is contiguous in
  // it or constant along it, as in x * scale[N, C, 1, 1]); the outer ones strided.
  std::int64_t inner = sizes.back();
  std::int64_t ia = st[1].back();
  std::int64_t ib = st[2].back();
  sizes.back() = 1;
  std::array<const std::int64_t*, 3> strides{st[0].data(), st[1].data(), st[2].data()};
  // Rows of the inner dimension split across threads (an SE block's x * scale[N, C, 1, 1]).
  auto row = [&](const std::array<std::int64_t, 3>& o) {
    Out* d = dst + o[0];
    const T* x = pa + o[1];
    const T* y = pb + o[2];
    if (ia == 1 && ib == 1) {
      cpu::zip_run(x, y, d, inner, op);
    } else if (ia == 1 && ib == 0) {
      cpu::map_run(x, d, inner, [&op, yv = *y](T v) { return op(v, yv); });
    } else if (ia == 0 && ib == 1) {
      cpu::map_run(y, d, inner, [&op, xv = *x](T v) { return op(xv, v); });
    } else {
      for (std::int64_t i = 0; i < inner; ++i) d[i] = op(x[i * ia], y[i * ib]);
    }
  };
  parallel_for(out.numel() / inner, std::max<std::int64_t>(1, kElementsPerThread / inner),
               [&](std::int64_t begin, std::int64_t end) {
                 for_each_offset_in<3>(sizes, strides, begin, end - begin, row);
               });
  return out;
}

// out[i] = op(x[i]) into a new contiguous tensor of x's shape; T is x's element type and
// Out (op's return type) the result's.
template <typename T, typename Op>
tensor::Tensor unary_map(const tensor::Tensor& x0, Op op) {
  using Out = decltype(op(T{}));
  tensor::Tensor out = tensor::Tensor::uninitialized(x0.sizes(), tensor::dtype_of<Out>);
  Out* dst = out.template mutable_data<Out>();
  const T* src = x0.template data<T>();
  if (x0.is_contiguous()) {
    parallel_for(out.numel(), kElementsPerThread, [&](std::int64_t begin, std::int64_t end) {
      cpu::map_run(src + begin, dst + begin, end - begin, op);
    });
    return out;
  }
  std::array<const std::int64_t*, 1> strides{x0.strides().data()};
  for_each_offset<1>(x0.sizes(), strides,
                     [&](const std::array<std::int64_t, 1>& o) { *dst++ = op(src[o[0]]); });
  return out;
}

// `f(in, out, n)` (a vector function, ops/cpu/vector_math.h) over a contiguous float32 x into
// a new float32 tensor of x's shape; nullopt for any other x, which the caller's element loop
// takes.
template <typename F>
std::optional<tensor::Tensor> map_contiguous_f32(const tensor::Tensor& x, F f) {
  if (x.dtype() != tensor::DType::kFloat32 || !x.is_contiguous()) return std::nullopt;
  tensor::Tensor out = tensor::Tensor::uninitialized(x.sizes(), tensor::DType::kFloat32);
  f(x.data<float>(), out.mutable_data<float>(), x.numel());
  return out;
}

// As unary_map, the result of x's own dtype.
template <typename T, typename Op>
tensor::Tensor unary_same(const tensor::Tensor& x0, Op op) {
  return unary_map<T>(x0, [&op](T v) -> T { return static_cast<T>(op(v)); });
}

// out = f(x) in x's floating dtype, or float32 for integers and bools (PyTorch's unary float
// functions); `kernel` names the dispatch for float16 / bfloat16, which fail.
template <typename F>
tensor::Tensor float_unary(const tensor::Tensor& x, const char* kernel, F f) {
  const tensor::DType compute = is_floating(x.dtype()) ? x.dtype() : tensor::DType::kFloat32;
  const tensor::Tensor in = x.dtype() == compute ? x : to_dtype(x, compute);
  return dispatch_floating(compute, kernel, [&](auto tag) -> tensor::Tensor {
    using T = decltype(tag);
    return unary_same<T>(in, [&](T v) { return static_cast<T>(f(v)); });
  });
}

// Pushes the value of an in-place op on `self` whose out-of-place result is `result`
// (assign_in_place's checks): `self` itself when its storage was written, so the model keeps
// one tensor, else the copy-on-write result.
void push_in_place(Stack& s, const IValue& self, const tensor::Tensor& result);

}  // namespace symbolite::ops
