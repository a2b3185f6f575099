// Operators on ints, floats, bools, strings and lists: the bookkeeping TorchScript code does
// around tensor kernels (shape arithmetic, list indexing, comparisons).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/integer_range.h"
#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

// Python's floor division of ints (floor_divmod), by zero PyTorch's ZeroDivisionError.
FloorDivMod checked_floor_divmod(std::int64_t a, std::int64_t b) {
  if (b == 0) throw OpError("ZeroDivisionError", "integer division or modulo by zero");
  return floor_divmod(a, b);
}

template <typename Op>
void int_binary(Stack& s) {
  std::int64_t b = pop(s).to_int();
  std::int64_t a = pop(s).to_int();
  s.emplace_back(Op{}(a, b));
}

template <typename Op>
void float_binary(Stack& s) {
  double b = pop(s).to_double();
  double a = pop(s).to_double();
  s.emplace_back(Op{}(a, b));
}

struct Add {
  template <typename T>
  auto operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return wrapping_add(a, b);
    } else {
      return a + b;
    }
  }
};
struct Sub {
  template <typename T>
  auto operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return wrapping_sub(a, b);
    } else {
      return a - b;
    }
  }
};
struct Mul {
  template <typename T>
  auto operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return wrapping_mul(a, b);
    } else {
      return a * b;
    }
  }
};
struct Mod {
  std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    return checked_floor_divmod(a, b).remainder;
  }
};
struct FloorDiv {
  std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    return checked_floor_divmod(a, b).quotient;
  }
};
struct Eq {
  template <typename T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};
struct Ne {
  template <typename T>
  bool operator()(T a, T b) const {
    return a != b;
  }
};
struct Lt {
  template <typename T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct Le {
  template <typename T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct Gt {
  template <typename T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};
struct Ge {
  template <typename T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};

// Python list indexing: negative counts from the end; out of range is IndexError with
// PyTorch's message.
std::size_t list_index(std::int64_t index, std::size_t size) {
  std::int64_t n = static_cast<std::int64_t>(size);
  std::int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) throw OpError("IndexError", "list index out of range");
  return static_cast<std::size_t>(i);
}

void list_getitem(Stack& s) {
  std::int64_t index = pop(s).to_int();
  IValue list = pop(s);
  const auto& items = list.to_list();
  s.push_back(items[list_index(index, items.size())]);
}

void list_len(Stack& s) {
  IValue list = pop(s);
  s.emplace_back(static_cast<std::int64_t>(list.to_list().size()));
}

void list_append(Stack& s) {
  IValue item = pop(s);
  IValue list = pop(s);
  list.to_list().push_back(std::move(item));
  s.push_back(std::move(list));
}

void list_concat(Stack& s) {
  IValue b = pop(s);
  IValue a = pop(s);
  IValueList out = a.to_list();
  const auto& tail = b.to_list();
  out.insert(out.end(), tail.begin(), tail.end());
  s.push_back(IValue::list(std::move(out)));
}

void str_list_contains(Stack& s) {
  IValue needle = pop(s);
  IValue list = pop(s);
  bool found = false;
  for (const auto& item : list.to_list()) found |= item.to_string() == needle.to_string();
  s.emplace_back(found);
}

// __contains__.int_list / .float_list: `item in list` (floats compare as Python's ==, so NaN
// is never found).
void int_list_contains(Stack& s) {
  std::int64_t needle = pop(s).to_int();
  IValue list = pop(s);
  bool found = false;
  for (const auto& item : list.to_list()) found |= item.to_int() == needle;
  s.emplace_back(found);
}
void float_list_contains(Stack& s) {
  double needle = pop(s).to_double();
  IValue list = pop(s);
  bool found = false;
  for (const auto& item : list.to_list()) found |= item.to_double() == needle;
  s.emplace_back(found);
}

void str_eq(Stack& s) {
  IValue b = pop(s);
  IValue a = pop(s);
  s.emplace_back(a.to_string() == b.to_string());
}

void tensor_size(Stack& s) {
  IValue t = pop(s);
  IValueList sizes;
  for (auto d : t.to_tensor().sizes()) sizes.emplace_back(d);
  s.push_back(IValue::list(std::move(sizes)));
}

void tensor_size_dim(Stack& s) {
  std::int64_t dim = pop(s).to_int();
  IValue t = pop(s);
  const auto& sizes = t.to_tensor().sizes();
  std::int64_t n = static_cast<std::int64_t>(sizes.size());
  if (dim < -std::max<std::int64_t>(n, 1) || dim >= std::max<std::int64_t>(n, 1)) {
    throw OpError(
        "IndexError",
        fmt::format("Dimension out of range (expected to be in range of [{}, {}], but "
                    "got {})",
                    -std::max<std::int64_t>(n, 1), std::max<std::int64_t>(n, 1) - 1, dim));
  }
  s.emplace_back(sizes[static_cast<std::size_t>(dim < 0 ? dim + n : dim)]);
}

void tensor_dim(Stack& s) {
  IValue t = pop(s);
  s.emplace_back(t.to_tensor().dim());
}

void unchecked_cast(Stack&) {}  // a type refinement for the compiler; the value is unchanged

void tuple_index(Stack& s) {
  std::int64_t index = pop(s).to_int();
  IValue tuple = pop(s);
  const auto& items = tuple.to_tuple();
  s.push_back(items[list_index(index, items.size())]);
}

void bool_binary_and(Stack& s) {
  bool b = pop(s).to_bool();
  bool a = pop(s).to_bool();
  s.emplace_back(a && b);
}
void bool_binary_or(Stack& s) {
  bool b = pop(s).to_bool();
  bool a = pop(s).to_bool();
  s.emplace_back(a || b);
}
void bool_binary_xor(Stack& s) {
  bool b = pop(s).to_bool();
  bool a = pop(s).to_bool();
  s.emplace_back(a != b);
}

// symbolite runs models for inference, without autograd: no tensor requires grad. PyTorch's
// lite interpreter keeps autograd (parameters saved with requires_grad=True, and what they
// compute, say True there): a model that branches on it takes its inference branch here —
// densenet's memory-efficient checkpointing, which TorchScript refuses anyway (README).
void requires_grad(Stack& s) {
  pop(s).to_tensor();
  s.emplace_back(false);
}

void int_neg(Stack& s) { s.emplace_back(wrapping_sub(0, pop(s).to_int())); }
void float_from_scalar(Stack& s) { s.emplace_back(pop(s).to_double()); }
void empty_dict(Stack& s) { s.push_back(IValue::dict(std::make_shared<Dict>())); }

void bool_from_float(Stack& s) { s.emplace_back(pop(s).to_double() != 0.0); }

template <bool all>
void bool_list_reduce(Stack& s) {
  IValue list = pop(s);  // alive for the loop: the popped value may own the list
  bool result = all;
  for (const auto& v : list.to_list()) result = all ? result && v.to_bool() : result || v.to_bool();
  s.emplace_back(result);
}

// The state queries nn.MultiheadAttention's fast-path check makes. Grad mode is on, as in
// PyTorch's lite interpreter (symbolite computes no gradients, and no tensor requires one);
// autocast is off; a tensor is nested only on nn.TransformerEncoder's fast path
// (nested_tensor_ops.cpp).
void grad_enabled(Stack& s) { s.emplace_back(true); }
void autocast_enabled(Stack& s) { s.emplace_back(false); }
void is_nested(Stack& s) { s.emplace_back(pop(s).to_tensor().nested_lengths() != nullptr); }

void is_floating_point(Stack& s) {
  IValue t = pop(s);
  tensor::DType d = t.to_tensor().dtype();
  s.emplace_back(d == tensor::DType::kFloat32 || d == tensor::DType::kFloat64 ||
                 d == tensor::DType::kFloat16 || d == tensor::DType::kBFloat16);
}
void numel(Stack& s) {
  IValue t = pop(s);
  s.emplace_back(t.to_tensor().numel());
}
void bool_from_int(Stack& s) { s.emplace_back(pop(s).to_int() != 0); }
void float_neg(Stack& s) { s.emplace_back(-pop(s).to_double()); }

// __range_length(lo, hi, step): how many values range(lo, hi, step) yields; what TorchScript
// compiles a `for i in range(lo, hi, step)` loop's trip count to.
void range_length(Stack& s) {
  std::int64_t step = pop(s).to_int();
  std::int64_t hi = pop(s).to_int();
  std::int64_t lo = pop(s).to_int();
  if (step == 0) fail("range() arg 3 must not be zero");
  // The span and the step's magnitude in uint64: hi - lo and -step overflow int64 at its ends.
  std::uint64_t count = 0;
  if (step > 0 && lo < hi) {
    count = 1 + (static_cast<std::uint64_t>(hi) - 1 - static_cast<std::uint64_t>(lo)) /
                    static_cast<std::uint64_t>(step);
  } else if (step < 0 && lo > hi) {
    count = 1 + (static_cast<std::uint64_t>(lo) - 1 - static_cast<std::uint64_t>(hi)) /
                    (0 - static_cast<std::uint64_t>(step));
  }
  if (count > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail(fmt::format("range({}, {}, {}) has {} values, more than an int holds", lo, hi, step,
                     count));
  }
  s.emplace_back(static_cast<std::int64_t>(count));
}
// __derive_index(index, start, step): the loop variable of iteration `index`.
void derive_index(Stack& s) {
  std::int64_t step = pop(s).to_int();
  std::int64_t start = pop(s).to_int();
  std::int64_t index = pop(s).to_int();
  s.emplace_back(wrapping_add(start, wrapping_mul(index, step)));
}

// int(x) truncates. PyTorch 1.13 casts unchecked, undefined for NaN, the infinities and floats
// outside int64 (x86 gives INT64_MIN); here those fail.
void int_from_float(Stack& s) {
  const double a = pop(s).to_double();
  if (!fits_integer<std::int64_t>(a)) {
    fail(fmt::format("aten::Int.float: cannot convert float {} to integer", a));
  }
  s.emplace_back(static_cast<std::int64_t>(a));
}
void float_from_int(Stack& s) { s.emplace_back(pop(s).to_double()); }

}  // namespace

void register_scalar_ops(OperatorRegistry& r) {
  r.add({"aten::add.int", 2, {}, int_binary<Add>});
  r.add({"aten::sub.int", 2, {}, int_binary<Sub>});
  r.add({"aten::mul.int", 2, {}, int_binary<Mul>});
  r.add({"aten::remainder.int", 2, {}, int_binary<Mod>});
  r.add({"aten::floordiv.int", 2, {}, int_binary<FloorDiv>});
  r.add({"aten::eq.int", 2, {}, int_binary<Eq>});
  r.add({"aten::ne.int", 2, {}, int_binary<Ne>});
  r.add({"aten::lt.int", 2, {}, int_binary<Lt>});
  r.add({"aten::le.int", 2, {}, int_binary<Le>});
  r.add({"aten::gt.int", 2, {}, int_binary<Gt>});
  r.add({"aten::ge.int", 2, {}, int_binary<Ge>});
  r.add({"aten::add.float", 2, {}, float_binary<Add>});
  r.add({"aten::sub.float", 2, {}, float_binary<Sub>});
  r.add({"aten::mul.float", 2, {}, float_binary<Mul>});
  r.add({"aten::eq.float", 2, {}, float_binary<Eq>});
  r.add({"aten::ne.float", 2, {}, float_binary<Ne>});
  r.add({"aten::lt.float", 2, {}, float_binary<Lt>});
  r.add({"aten::le.float", 2, {}, float_binary<Le>});
  r.add({"aten::gt.float", 2, {}, float_binary<Gt>});
  r.add({"aten::ge.float", 2, {}, float_binary<Ge>});
  // Mixed int and float operands compare and combine as floats, as Python does.
  for (const char* overload : {"float_int", "int_float"}) {
    const std::string o = overload;
    r.add({"aten::add." + o, 2, {}, float_binary<Add>});
    r.add({"aten::sub." + o, 2, {}, float_binary<Sub>});
    r.add({"aten::mul." + o, 2, {}, float_binary<Mul>});
    r.add({"aten::eq." + o, 2, {}, float_binary<Eq>});
    r.add({"aten::ne." + o, 2, {}, float_binary<Ne>});
    r.add({"aten::lt." + o, 2, {}, float_binary<Lt>});
    r.add({"aten::le." + o, 2, {}, float_binary<Le>});
    r.add({"aten::gt." + o, 2, {}, float_binary<Gt>});
    r.add({"aten::ge." + o, 2, {}, float_binary<Ge>});
  }
  r.add({"aten::__and__.bool", 2, {}, bool_binary_and});
  r.add({"aten::__or__.bool", 2, {}, bool_binary_or});
  r.add({"aten::__xor__.bool", 2, {}, bool_binary_xor});
  r.add({"prim::requires_grad", 1, {}, requires_grad});
  r.add({"aten::neg.int", 1, {}, int_neg});
  r.add({"aten::Float.Scalar", 1, {}, float_from_scalar});
  r.add({"aten::dict", 0, {}, empty_dict});
  r.add({"aten::Bool.float", 1, {}, bool_from_float});
  r.add({"aten::all.bool", 1, {}, bool_list_reduce<true>});
  r.add({"aten::any.bool", 1, {}, bool_list_reduce<false>});
  r.add({"aten::is_grad_enabled", 0, {}, grad_enabled});
  r.add({"aten::is_autocast_enabled", 0, {}, autocast_enabled});
  r.add({"prim::is_nested", 1, {}, is_nested});
  r.add({"aten::Int.float", 1, {}, int_from_float});
  r.add({"aten::Float.int", 1, {}, float_from_int});
  r.add({"aten::eq.str", 2, {}, str_eq});
  r.add({"aten::__getitem__.t", 2, {}, list_getitem});
  r.add({"aten::len.t", 1, {}, list_len});
  r.add({"aten::append.t", 2, {}, list_append});
  r.add({"aten::add.t", 2, {}, list_concat});
  r.add({"aten::__contains__.str_list", 2, {}, str_list_contains});
  r.add({"aten::__contains__.int_list", 2, {}, int_list_contains});
  r.add({"aten::__contains__.float_list", 2, {}, float_list_contains});
  r.add({"aten::is_floating_point", 1, {}, is_floating_point});
  r.add({"aten::numel", 1, {}, numel});
  r.add({"aten::Bool.int", 1, {}, bool_from_int});
  r.add({"aten::neg.float", 1, {}, float_neg});
  r.add({"aten::__range_length", 3, {}, range_length});
  r.add({"aten::__derive_index", 3, {}, derive_index});
  r.add({"aten::size", 1, {}, tensor_size});
  r.add({"aten::size.int", 2, {}, tensor_size_dim});
  r.add({"aten::dim", 1, {}, tensor_dim});
  r.add({"prim::unchecked_cast", 1, {}, unchecked_cast});
  r.add({"prim::TupleIndex", 2, {}, tuple_index});
}

}  // namespace symbolite::ops
