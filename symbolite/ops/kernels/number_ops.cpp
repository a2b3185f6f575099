// Python number arithmetic beyond + - * and comparisons (scalar_ops.cpp): true and floor
// division, modulo and divmod with floats, bitwise int operators, min/max/abs of two
// numbers. PyTorch 1.13's formulas, which are not always Python's: float // is floor(a / b)
// (inf on division by zero, no ZeroDivisionError), float % is fmod(b + fmod(a, b), b) (the
// divisor's sign; nan on zero); only divmod raises "ZeroDivisionError: ...".
#include <cmath>
#include <string>

#include "symbolite/ops/common/wrapping_int.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

bool both_ints(const IValue& a, const IValue& b) {
  return a.is(IValue::Kind::kInt) && b.is(IValue::Kind::kInt);
}

// Python's floor division and modulo of ints (floor_divmod), with PyTorch's zero-division
// texts. PyTorch computes the modulo as (b + a % b) % b, which overflows for b near INT64_MAX
// (1 % INT64_MAX is -1 there) and traps for INT64_MIN % -1; the same results elsewhere.
std::int64_t int_floordiv(std::int64_t a, std::int64_t b) {
  if (b == 0) fail("division by 0");
  return floor_divmod(a, b).quotient;
}
std::int64_t int_remainder(std::int64_t a, std::int64_t b) {
  if (b == 0) throw OpError("ZeroDivisionError", "integer division or modulo by zero");
  return floor_divmod(a, b).remainder;
}

double float_floordiv(double a, double b) { return std::floor(a / b); }
double float_remainder(double a, double b) { return std::fmod(b + std::fmod(a, b), b); }

template <double (*F)(double, double)>
void float_binary(Stack& s) {
  double b = pop(s).to_double();
  double a = pop(s).to_double();
  s.emplace_back(F(a, b));
}

// The Scalar overloads: int op int stays an int, anything else is a float.
template <std::int64_t (*I)(std::int64_t, std::int64_t), double (*F)(double, double)>
void scalar_binary(Stack& s) {
  IValue b = pop(s);
  IValue a = pop(s);
  if (both_ints(a, b)) {
    s.emplace_back(I(a.to_int(), b.to_int()));
  } else {
    s.emplace_back(F(a.to_double(), b.to_double()));
  }
}

// a / b of floats, ints or Scalars is a float (IEEE, as PyTorch's kernels: 1 / 0 is inf,
// not ZeroDivisionError).
void true_div(Stack& s) {
  double b = pop(s).to_double();
  double a = pop(s).to_double();
  s.emplace_back(a / b);
}

void divmod_int(Stack& s) {
  std::int64_t b = pop(s).to_int();
  std::int64_t a = pop(s).to_int();
  if (b == 0) fail("ZeroDivisionError: integer division or modulo by zero");
  const FloorDivMod r = floor_divmod(a, b);
  s.emplace_back(r.quotient);
  s.emplace_back(r.remainder);
}
void divmod_float(Stack& s) {
  double b = pop(s).to_double();
  double a = pop(s).to_double();
  if (b == 0) fail("ZeroDivisionError: float divmod()");
  double rem = std::fmod(a, b);
  if (rem != 0 && (a < 0) != (b < 0)) rem += b;
  s.emplace_back((a - rem) / b);
  s.emplace_back(rem);
}
// divmod of an int and a float: PyTorch's other formula (floor, then a - q * b).
void divmod_mixed(Stack& s) {
  double b = pop(s).to_double();
  double a = pop(s).to_double();
  if (b == 0) fail("ZeroDivisionError: float divmod()");
  double quot = std::floor(a / b);
  s.emplace_back(quot);
  s.emplace_back(a - quot * b);
}

// Shifts as PyTorch's compiled `a << b` runs on x86-64: the count is taken modulo 64.
std::int64_t shl(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << (b & 63));
}
std::int64_t shr(std::int64_t a, std::int64_t b) { return a >> (b & 63); }
std::int64_t bit_and(std::int64_t a, std::int64_t b) { return a & b; }
std::int64_t bit_or(std::int64_t a, std::int64_t b) { return a | b; }
std::int64_t bit_xor(std::int64_t a, std::int64_t b) { return a ^ b; }

template <std::int64_t (*F)(std::int64_t, std::int64_t)>
void int_binary(Stack& s) {
  std::int64_t b = pop(s).to_int();
  std::int64_t a = pop(s).to_int();
  s.emplace_back(F(a, b));
}

// min(a, b) is `a < b ? a : b` and max `a > b ? a : b` (so a NaN first argument loses);
// the result is an int only when both are.
template <bool is_min>
void min_max(Stack& s) {
  IValue b = pop(s);
  IValue a = pop(s);
  if (both_ints(a, b)) {
    std::int64_t x = a.to_int(), y = b.to_int();
    s.emplace_back(is_min ? (x < y ? x : y) : (x > y ? x : y));
  } else {
    double x = a.to_double(), y = b.to_double();
    s.emplace_back(is_min ? (x < y ? x : y) : (x > y ? x : y));
  }
}

void abs_(Stack& s) {
  IValue a = pop(s);
  if (a.is(IValue::Kind::kInt)) {
    // abs(INT64_MIN) wraps to itself, as in PyTorch (std::abs of it is undefined).
    const std::int64_t x = a.to_int();
    s.emplace_back(x < 0 ? wrapping_sub(0, x) : x);
  } else {
    s.emplace_back(std::fabs(a.to_double()));
  }
}

}  // namespace

void register_number_ops(OperatorRegistry& r) {
  for (const char* overload : {"float", "float_int", "int_float"}) {
    const std::string o = overload;
    r.add({"aten::floordiv." + o, 2, {}, float_binary<float_floordiv>});
    r.add({"aten::remainder." + o, 2, {}, float_binary<float_remainder>});
    r.add({"prim::min." + o, 2, {}, min_max<true>});
    r.add({"prim::max." + o, 2, {}, min_max<false>});
  }
  r.add({"aten::floordiv", 2, {}, scalar_binary<int_floordiv, float_floordiv>});
  r.add({"aten::remainder", 2, {}, scalar_binary<int_remainder, float_remainder>});
  r.add({"aten::div.float", 2, {}, true_div});
  r.add({"aten::div.int", 2, {}, true_div});
  r.add({"aten::div", 2, {}, true_div});
  r.add({"aten::divmod.int", 2, {}, divmod_int});
  r.add({"aten::divmod.float", 2, {}, divmod_float});
  r.add({"aten::divmod.int_float", 2, {}, divmod_mixed});
  r.add({"aten::divmod.float_int", 2, {}, divmod_mixed});
  r.add({"aten::__and__.int", 2, {}, int_binary<bit_and>});
  r.add({"aten::__or__.int", 2, {}, int_binary<bit_or>});
  r.add({"aten::__xor__.int", 2, {}, int_binary<bit_xor>});
  r.add({"aten::__lshift__.int", 2, {}, int_binary<shl>});
  r.add({"aten::__rshift__.int", 2, {}, int_binary<shr>});
  r.add({"prim::min.int", 2, {}, min_max<true>});
  r.add({"prim::max.int", 2, {}, min_max<false>});
  r.add({"prim::min", 2, {}, min_max<true>});
  r.add({"prim::max", 2, {}, min_max<false>});
  r.add({"prim::abs.int", 1, {}, abs_});
  r.add({"prim::abs.float", 1, {}, abs_});
  r.add({"prim::abs.Scalar", 1, {}, abs_});
}

}  // namespace symbolite::ops
