// The `math` module on Python numbers (math.sqrt, log, pow, floor, isnan, gcd, ...) as
// TorchScript compiles it: one kernel per function, registered under every overload PyTorch
// 1.13 declares (.int, .float, .Scalar, .int_float, ...). The arguments are read as doubles
// (an int argument converts), so one kernel serves them all. PyTorch computes with the C
// library and does not raise Python's ValueError: math.sqrt(-1.0) is nan, math.log(0.0) -inf.
#include <bit>
#include <cmath>
#include <string>

#include "symbolite/ops/common/integer_range.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

template <double (*F)(double)>
void unary(Stack& s) {
  s.emplace_back(F(pop(s).to_double()));
}

template <double (*F)(double, double)>
void binary(Stack& s) {
  double b = pop(s).to_double();
  double a = pop(s).to_double();
  s.emplace_back(F(a, b));
}

template <bool (*F)(double)>
void predicate(Stack& s) {
  s.emplace_back(F(pop(s).to_double()));
}

double sqrt_(double a) { return std::sqrt(a); }
double exp_(double a) { return std::exp(a); }
double expm1_(double a) { return std::expm1(a); }
double log_(double a) { return std::log(a); }
double log10_(double a) { return std::log10(a); }
double log1p_(double a) { return std::log1p(a); }
double sin_(double a) { return std::sin(a); }
double cos_(double a) { return std::cos(a); }
double tan_(double a) { return std::tan(a); }
double asin_(double a) { return std::asin(a); }
double acos_(double a) { return std::acos(a); }
double atan_(double a) { return std::atan(a); }
double sinh_(double a) { return std::sinh(a); }
double cosh_(double a) { return std::cosh(a); }
double tanh_(double a) { return std::tanh(a); }
double asinh_(double a) { return std::asinh(a); }
double acosh_(double a) { return std::acosh(a); }
double atanh_(double a) { return std::atanh(a); }
double erf_(double a) { return std::erf(a); }
double erfc_(double a) { return std::erfc(a); }
double gamma_(double a) { return std::tgamma(a); }
double lgamma_(double a) { return std::lgamma(a); }
double fabs_(double a) { return std::fabs(a); }
// PyTorch scales by 180 / acos(-1) (not Python's exact conversion).
double degrees_(double a) { return a * (180.0 / std::acos(-1.0)); }
double radians_(double a) { return a * (std::acos(-1.0) / 180.0); }
// round(): halves to even, as PyTorch's round_to_even.
double round_(double a) {
  return a - std::floor(a) == 0.5 ? std::round(a * 0.5) * 2.0 : std::round(a);
}

double log_base(double a, double b) { return std::log(a) / std::log(b); }
double atan2_(double a, double b) { return std::atan2(a, b); }
double copysign_(double a, double b) { return std::copysign(a, b); }
double fmod_(double a, double b) { return std::fmod(a, b); }
double ieee_remainder(double a, double b) { return std::remainder(a, b); }
double pow_unchecked(double a, double b) { return std::pow(a, b); }
// The typed overloads of pow refuse 0 ** negative; the Scalar one does not.
double pow_checked(double a, double b) {
  if (a == 0.0 && b < 0.0) fail("0.0 cannot be raised to a negative power");
  return std::pow(a, b);
}

bool isnan_(double a) { return std::isnan(a); }
bool isinf_(double a) { return std::isinf(a); }
bool isfinite_(double a) { return std::isfinite(a); }

// floor and ceil give ints; a float outside int64 fails as PyTorch's checkDoubleInRange
// (std::to_string's "%f" form of the value), 2^63 too, which that check lets through to an
// undefined conversion.
std::int64_t to_int_checked(double a) {
  if (!fits_integer<std::int64_t>(a)) {
    fail("Cannot convert float " + std::to_string(a) + " to integer");
  }
  return static_cast<std::int64_t>(a);
}
void floor_(Stack& s) { s.emplace_back(to_int_checked(std::floor(pop(s).to_double()))); }
void ceil_(Stack& s) { s.emplace_back(to_int_checked(std::ceil(pop(s).to_double()))); }

// modf(x) -> (fraction, whole); frexp(x) -> (mantissa, exponent); ldexp(x, i).
void modf_(Stack& s) {
  double whole = 0;
  double fraction = std::modf(pop(s).to_double(), &whole);
  s.emplace_back(fraction);
  s.emplace_back(whole);
}
void frexp_(Stack& s) {
  int exponent = 0;
  double mantissa = std::frexp(pop(s).to_double(), &exponent);
  s.emplace_back(mantissa);
  s.emplace_back(exponent);
}
void ldexp_(Stack& s) {
  std::int64_t i = pop(s).to_int();
  double x = pop(s).to_double();
  s.emplace_back(std::ldexp(x, static_cast<int>(i)));
}

// gcd is never negative (Python's rule).
void gcd(Stack& s) {
  std::int64_t b = pop(s).to_int();
  std::int64_t a = pop(s).to_int();
  while (b != 0) {
    std::int64_t r = a % b;
    a = b;
    b = r;
  }
  s.emplace_back(a < 0 ? -a : a);
}

// PyTorch takes the argument as a C int and computes n! modulo 2^64 as the odd part of n!
// shifted left by the power of two it dropped, n - popcount(n); the shift count is taken
// modulo 64 as x86's shl does, so past 20! the result wraps as PyTorch's does.
void factorial(Stack& s) {
  const int n = static_cast<int>(pop(s).to_int());
  if (n < 0) fail("factorial() not defined for negative values");
  std::uint64_t odd = 1;
  for (unsigned i = 1; i <= static_cast<unsigned>(n); ++i) odd *= i >> std::countr_zero(i);
  const unsigned shift = static_cast<unsigned>(n - std::popcount(static_cast<unsigned>(n))) & 63u;
  s.emplace_back(static_cast<std::int64_t>(odd << shift));
}

// Registers `kernel` as name.<overload> for each overload.
void add_all(OperatorRegistry& r, const std::string& name, std::size_t num_args,
             std::initializer_list<const char*> overloads, Kernel kernel) {
  for (const char* overload : overloads) {
    r.add({*overload ? name + "." + overload : name, num_args, {}, kernel});
  }
}

}  // namespace

void register_float_math_ops(OperatorRegistry& r) {
  struct Unary {
    const char* name;
    Kernel kernel;
  };
  // float f(x) for int, float and Scalar arguments.
  for (const Unary& u : std::initializer_list<Unary>{{"aten::sqrt", unary<sqrt_>},
                                                     {"aten::exp", unary<exp_>},
                                                     {"aten::expm1", unary<expm1_>},
                                                     {"aten::log", unary<log_>},
                                                     {"aten::log10", unary<log10_>},
                                                     {"aten::log1p", unary<log1p_>},
                                                     {"aten::sin", unary<sin_>},
                                                     {"aten::cos", unary<cos_>},
                                                     {"aten::tan", unary<tan_>},
                                                     {"aten::asin", unary<asin_>},
                                                     {"aten::acos", unary<acos_>},
                                                     {"aten::atan", unary<atan_>},
                                                     {"aten::sinh", unary<sinh_>},
                                                     {"aten::cosh", unary<cosh_>},
                                                     {"aten::tanh", unary<tanh_>},
                                                     {"aten::asinh", unary<asinh_>},
                                                     {"aten::acosh", unary<acosh_>},
                                                     {"aten::atanh", unary<atanh_>},
                                                     {"aten::erf", unary<erf_>},
                                                     {"aten::erfc", unary<erfc_>},
                                                     {"aten::gamma", unary<gamma_>},
                                                     {"aten::lgamma", unary<lgamma_>},
                                                     {"aten::fabs", unary<fabs_>},
                                                     {"aten::degrees", unary<degrees_>},
                                                     {"aten::radians", unary<radians_>},
                                                     {"aten::round", unary<round_>},
                                                     {"aten::floor", floor_},
                                                     {"aten::ceil", ceil_}}) {
    add_all(r, u.name, 1, {"int", "float", "Scalar"}, u.kernel);
  }
  add_all(r, "aten::isnan", 1, {"float"}, predicate<isnan_>);
  add_all(r, "aten::isinf", 1, {"float"}, predicate<isinf_>);
  add_all(r, "aten::isfinite", 1, {"float"}, predicate<isfinite_>);

  // float f(a, b) for every pairing of int and float.
  add_all(r, "aten::log", 2, {"int_int", "float_float", "int_float", "float_int", "Scalar_Scalar"},
          binary<log_base>);
  add_all(r, "aten::atan2", 2, {"int", "float", "int_float", "float_int", "Scalar_Scalar"},
          binary<atan2_>);
  add_all(r, "aten::copysign", 2, {"int", "float", "int_float", "float_int", ""},
          binary<copysign_>);
  add_all(r, "aten::fmod", 2, {"int", "float", "int_float", "float_int", ""}, binary<fmod_>);
  add_all(r, "aten::mathremainder", 2, {"int", "float", "int_float", "float_int", ""},
          binary<ieee_remainder>);
  // int ** int is a float in TorchScript (negative exponents); int_to_int too, as PyTorch's
  // kernel pushes C++'s double pow.
  add_all(r, "aten::pow", 2, {"int", "float", "int_float", "float_int", "int_to_int"},
          binary<pow_checked>);
  add_all(r, "aten::pow", 2, {"Scalar_Scalar"}, binary<pow_unchecked>);

  r.add({"aten::modf", 1, {}, modf_});
  r.add({"aten::frexp", 1, {}, frexp_});
  r.add({"aten::ldexp", 2, {}, ldexp_});
  r.add({"aten::gcd.int", 2, {}, gcd});
  r.add({"aten::factorial.int", 1, {}, factorial});
}

}  // namespace symbolite::ops
