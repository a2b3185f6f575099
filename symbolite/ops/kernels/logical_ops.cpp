// Boolean and bitwise operators: `&`, `|`, `^`, `~`, `<<`, `>>` and bitwise_and/or/xor/not,
// logical_not/and/or/xor, and where (selection by a boolean condition), with PyTorch 1.13's
// promotion, broadcasting and messages.
#include <array>
#include <cstdint>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/cpu/element_runs.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// bitwise_and / bitwise_or / bitwise_xor (and `&`, `|`, `^` on tensors) in the promoted
// dtype of both operands: bool and integers only. A Scalar operand counts as a wrapped
// number, as in PyTorch's promotion.
struct BitAnd {
  static constexpr const char* kKernel = "bitwise_and_cpu";
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x && y;
    } else {
      return static_cast<T>(x & y);
    }
  }
};
struct BitOr {
  static constexpr const char* kKernel = "bitwise_or_cpu";
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x || y;
    } else {
      return static_cast<T>(x | y);
    }
  }
};
struct BitXor {
  static constexpr const char* kKernel = "bitwise_xor_cpu";
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x != y;
    } else {
      return static_cast<T>(x ^ y);
    }
  }
};

template <typename Op>
Tensor bitwise(const Tensor& a, const Tensor& b, DType common, bool in_place = false) {
  return dispatch_all(common, Op::kKernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      not_implemented(Op::kKernel, common);
    } else {
      return binary_kernel<T>(a, b, Op{}, in_place);
    }
  });
}

template <typename Op>
void bitwise_tensor(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  s.emplace_back(bitwise<Op>(a, b, ResultType().tensor(a).tensor(b).result()));
}

template <typename Op>
void bitwise_scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const DType common = ResultType().tensor(a).scalar(other).result();
  s.emplace_back(bitwise<Op>(a, scalar_tensor(other, common), common));
}

// The in-place forms: the result must convert to self's dtype.
template <typename Op>
void bitwise_tensor_(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  const DType common = ResultType().tensor(a).tensor(b).result();
  if (common != a.dtype()) {
    fail(fmt::format("result type {} can't be cast to the desired output type {}",
                     tensor::scalar_type_name(common), tensor::scalar_type_name(a.dtype())));
  }
  push_in_place(s, self, bitwise<Op>(a, b, common, true));
}

// bitwise_not (`~x`): logical not of bools, the complement of integers.
Tensor bitwise_not_impl(const Tensor& x) {
  return dispatch_all(x.dtype(), "bitwise_not_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      not_implemented("bitwise_not_cpu", x.dtype());
    } else if constexpr (std::is_same_v<T, bool>) {
      return unary_same<T>(x, [](bool v) { return !v; });
    } else {
      return unary_same<T>(x, [](T v) { return static_cast<T>(~v); });
    }
  });
}
void bitwise_not(Stack& s) { s.emplace_back(bitwise_not_impl(pop(s).to_tensor())); }
void bitwise_not_(Stack& s) {
  IValue self = pop(s);
  push_in_place(s, self, bitwise_not_impl(self.to_tensor()));
}

// `<<` and `>>` on integer tensors, as PyTorch 1.13's kernels compute them in C++: the value
// promoted (int for narrow types), the shift count reduced modulo the promoted width as x86
// shifts do (so `x << 64` of an int64 is x), the result cast back. Floating tensors fail as its
// dispatch does.
template <bool kLeft>
Tensor shift(const Tensor& a, const Tensor& b, tensor::DType common) {
  return dispatch_numeric(common, kLeft ? "lshift_cpu" : "rshift_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool> || std::is_floating_point_v<T>) {
      not_implemented(kLeft ? "lshift_cpu" : "rshift_cpu", common);
    } else {
      return binary_kernel<T>(a, b, [](T x, T y) -> T {
        using U = std::make_unsigned_t<T>;
        if constexpr (kLeft) {
          using P = decltype(+U{});
          const auto count =
              static_cast<unsigned>(static_cast<std::uint64_t>(y) & (sizeof(P) * 8 - 1));
          return static_cast<T>(static_cast<P>(static_cast<U>(x)) << count);
        } else {
          using P = decltype(+T{});
          const auto count =
              static_cast<unsigned>(static_cast<std::uint64_t>(y) & (sizeof(P) * 8 - 1));
          return static_cast<T>(static_cast<P>(x) >> count);
        }
      });
    }
  });
}
template <bool kLeft>
void shift_tensor(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  s.emplace_back(shift<kLeft>(a, b, ResultType().tensor(a).tensor(b).result()));
}
template <bool kLeft>
void shift_scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const tensor::DType common = ResultType().tensor(a).scalar(other).result();
  s.emplace_back(shift<kLeft>(a, scalar_tensor(other, common), common));
}

// Any dtype to bool: true where the element is zero (NaN is not).
void logical_not(Stack& s) {
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(dispatch_all(x.dtype(), "logical_not_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_map<T>(x, [](T v) -> bool { return v == T{}; });
  }));
}

// logical_and / logical_or / logical_xor: each operand (any dtype) is true where nonzero (NaN
// is), the two broadcast; the result is bool. The in-place forms write the bool result into
// self, converted to self's dtype (1 or 0).
template <typename Op>
Tensor logical_binary(const Tensor& a, const Tensor& b) {
  auto as_bool = [](const Tensor& t) {
    return t.dtype() == DType::kBool ? t : to_dtype(t, DType::kBool);
  };
  return binary_kernel<bool>(as_bool(a), as_bool(b), Op{});
}
struct LogicalAnd {
  bool operator()(bool x, bool y) const { return x && y; }
};
struct LogicalOr {
  bool operator()(bool x, bool y) const { return x || y; }
};
struct LogicalXor {
  bool operator()(bool x, bool y) const { return x != y; }
};

template <typename Op>
void logical_op(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(logical_binary<Op>(self.to_tensor(), other.to_tensor()));
}
template <typename Op>
void logical_op_(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  Tensor result = logical_binary<Op>(t, other.to_tensor());
  push_in_place(s, self, t.dtype() == DType::kBool ? result : to_dtype(result, t.dtype()));
}

// One row of where: out[i] = cond[i] ? x[i] : y[i], each operand's elements step[k] apart
// (step[0], the result's, is 1); the common runs (all contiguous, or one side a number) in
// vectors.
template <typename T>
void where_row(const std::uint8_t* cond, const T* x, const T* y, T* out, std::int64_t n,
               const std::array<std::int64_t, 4>& step) {
  if (step[1] == 1 && step[2] == 1 && step[3] == 1) {
    return cpu::zip3_run(cond, x, y, out, n,
                         [](std::uint8_t c, T xv, T yv) { return c ? xv : yv; });
  }
  if (step[1] == 1 && step[2] == 1 && step[3] == 0) {
    return cpu::zip_run(cond, x, out, n, [yv = *y](std::uint8_t c, T xv) { return c ? xv : yv; });
  }
  if (step[1] == 1 && step[2] == 0 && step[3] == 1) {
    return cpu::zip_run(cond, y, out, n, [xv = *x](std::uint8_t c, T yv) { return c ? xv : yv; });
  }
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = cond[i * step[1]] != 0 ? x[i * step[2]] : y[i * step[3]];
  }
}

// where.self(condition, self, other): the condition (bool, or uint8 as PyTorch still
// accepts) picks self or other, all three broadcast in that order; the result has the
// promoted dtype of self and other.
void where_self(Stack& s) {
  IValue other_v = pop(s), self_v = pop(s), cond_v = pop(s);
  const Tensor& cond = cond_v.to_tensor();
  DType dtype = ResultType().tensor(self_v.to_tensor()).tensor(other_v.to_tensor()).result();
  if (cond.dtype() != DType::kBool && cond.dtype() != DType::kUInt8) {
    fail(
        fmt::format("where expected condition to be a boolean tensor, but got a tensor with "
                    "dtype {}",
                    tensor::scalar_type_name(cond.dtype())));
  }
  auto as_dtype = [dtype](const Tensor& t) { return t.dtype() == dtype ? t : to_dtype(t, dtype); };
  Tensor a = as_dtype(self_v.to_tensor());
  Tensor b = as_dtype(other_v.to_tensor());
  std::vector<std::int64_t> shape = tensor::broadcast_shapes(cond.sizes(), a.sizes());
  shape = tensor::broadcast_shapes(shape, b.sizes());
  Tensor out = Tensor::uninitialized(shape, dtype);
  if (out.numel() == 0) {
    s.emplace_back(std::move(out));
    return;
  }
  const std::uint8_t* c = cond.raw_data();  // bool and uint8 are one byte
  dispatch_all(dtype, "where_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.template mutable_data<T>();
    const T* x = a.template data<T>();
    const T* y = b.template data<T>();
    for_each_row<4>(shape,
                    {tensor::contiguous_strides(shape), broadcast_strides(cond, shape),
                     broadcast_strides(a, shape), broadcast_strides(b, shape)},
                    [&](const std::array<std::int64_t, 4>& o, std::int64_t n,
                        const std::array<std::int64_t, 4>& step) {
                      where_row(c + o[1], x + o[2], y + o[3], dst + o[0], n, step);
                    });
  });
  s.emplace_back(std::move(out));
}

// where with numbers for either side (`torch.where(mask, x, 0.0)`, `torch.where(mask, 1, 0)`):
// each number a 0-dim tensor of the result dtype, which numbers alone make as wrapped
// operands do (floats the default dtype, float32).
template <bool kSelfScalar, bool kOtherScalar>
void where_scalars(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const DType dtype = ResultType().operand(self).operand(other).result();
  auto as_tensor = [dtype](const IValue& v, bool scalar) {
    return IValue(scalar ? checked_scalar_tensor(v, dtype) : to_dtype(v.to_tensor(), dtype));
  };
  s.push_back(as_tensor(self, kSelfScalar));
  s.push_back(as_tensor(other, kOtherScalar));
  where_self(s);
}

}  // namespace

void register_logical_ops(OperatorRegistry& r) {
  r.add({"aten::__and__.Tensor", 2, {}, bitwise_tensor<BitAnd>});
  r.add({"aten::__or__.Tensor", 2, {}, bitwise_tensor<BitOr>});
  r.add({"aten::__xor__.Tensor", 2, {}, bitwise_tensor<BitXor>});
  r.add({"aten::__iand__.Tensor", 2, {}, bitwise_tensor_<BitAnd>});
  r.add({"aten::__ior__.Tensor", 2, {}, bitwise_tensor_<BitOr>});
  r.add({"aten::__ixor__.Tensor", 2, {}, bitwise_tensor_<BitXor>});
  r.add({"aten::bitwise_and.Tensor", 2, {}, bitwise_tensor<BitAnd>});
  r.add({"aten::bitwise_or.Tensor", 2, {}, bitwise_tensor<BitOr>});
  r.add({"aten::bitwise_xor.Tensor", 2, {}, bitwise_tensor<BitXor>});
  r.add({"aten::bitwise_and.Scalar", 2, {}, bitwise_scalar<BitAnd>});
  r.add({"aten::bitwise_or.Scalar", 2, {}, bitwise_scalar<BitOr>});
  r.add({"aten::bitwise_xor.Scalar", 2, {}, bitwise_scalar<BitXor>});
  r.add({"aten::bitwise_and_.Tensor", 2, {}, bitwise_tensor_<BitAnd>});
  r.add({"aten::bitwise_or_.Tensor", 2, {}, bitwise_tensor_<BitOr>});
  r.add({"aten::bitwise_xor_.Tensor", 2, {}, bitwise_tensor_<BitXor>});
  r.add({"aten::logical_not", 1, {}, logical_not});
  r.add({"aten::bitwise_not", 1, {}, bitwise_not});
  r.add({"aten::__lshift__.Tensor", 2, {}, shift_tensor<true>});
  r.add({"aten::__rshift__.Tensor", 2, {}, shift_tensor<false>});
  r.add({"aten::__lshift__.Scalar", 2, {}, shift_scalar<true>});
  r.add({"aten::__rshift__.Scalar", 2, {}, shift_scalar<false>});
  r.add({"aten::bitwise_left_shift.Tensor", 2, {}, shift_tensor<true>});
  r.add({"aten::bitwise_right_shift.Tensor", 2, {}, shift_tensor<false>});
  r.add({"aten::bitwise_left_shift.Tensor_Scalar", 2, {}, shift_scalar<true>});
  r.add({"aten::bitwise_right_shift.Tensor_Scalar", 2, {}, shift_scalar<false>});
  r.add({"aten::bitwise_not_", 1, {}, bitwise_not_});
  r.add({"aten::logical_and", 2, {}, logical_op<LogicalAnd>});
  r.add({"aten::logical_or", 2, {}, logical_op<LogicalOr>});
  r.add({"aten::logical_xor", 2, {}, logical_op<LogicalXor>});
  r.add({"aten::logical_and_", 2, {}, logical_op_<LogicalAnd>});
  r.add({"aten::logical_or_", 2, {}, logical_op_<LogicalOr>});
  r.add({"aten::logical_xor_", 2, {}, logical_op_<LogicalXor>});
  r.add({"aten::where.self", 3, {}, where_self});
  r.add({"aten::where.ScalarSelf", 3, {}, where_scalars<true, false>});
  r.add({"aten::where.ScalarOther", 3, {}, where_scalars<false, true>});
  r.add({"aten::where.Scalar", 3, {}, where_scalars<true, true>});
}

}  // namespace symbolite::ops
