// Special functions of tensors: erfinv, lgamma, digamma, polygamma, mvlgamma, i0 (+ in place)
// and torch.special's i0e, i1, i1e, entr, erfcx, ndtr, ndtri, log_ndtr, xlog1py and zeta,
// the incomplete gamma functions igamma and igammac, with the `aten::special_*` names that are
// other operators' aliases. Integer and bool tensors compute in float32 (igamma and igammac
// refuse them), floating ones in their own dtype, as PyTorch's float ops do;
// the scalar math is PyTorch's own algorithms (ops/common/special_functions.h).
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/special_functions.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/ops/registry/resolved_kernel.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// An in-place float op on an integer or bool tensor: its float result cannot be written back.
void check_float_self(const Tensor& self) {
  if (!is_floating(self.dtype())) {
    fail(fmt::format("result type Float can't be cast to the desired output type {}",
                     tensor::scalar_type_name(self.dtype())));
  }
}

// The elementwise functions, each with the kernel name PyTorch's dispatch errors give.
struct Erfinv {
  static constexpr const char* kName = "erfinv_cpu";
  template <typename T>
  T operator()(T v) const {
    return special::erfinv(v);
  }
};
struct Lgamma {
  static constexpr const char* kName = "lgamma_vml_cpu";
  template <typename T>
  T operator()(T v) const {
    return std::lgamma(v);
  }
};
struct Digamma {
  static constexpr const char* kName = "digamma";
  template <typename T>
  T operator()(T v) const {
    return special::digamma(v);
  }
};
struct I0 {
  static constexpr const char* kName = "i0_vml_cpu";
  template <typename T>
  T operator()(T v) const {
    return special::i0(v);
  }
};
struct I0e {
  static constexpr const char* kName = "i0e_cpu";
  template <typename T>
  T operator()(T v) const {
    return special::i0e(v);
  }
};
struct I1 {
  static constexpr const char* kName = "i1_cpu";
  template <typename T>
  T operator()(T v) const {
    return special::i1(v);
  }
};
struct I1e {
  static constexpr const char* kName = "i1e_cpu";
  template <typename T>
  T operator()(T v) const {
    return special::i1e(v);
  }
};
// -x log x, 0 at 0, -inf below.
struct Entr {
  static constexpr const char* kName = "entr_cpu";
  template <typename T>
  T operator()(T v) const {
    if (std::isnan(v)) return v;
    if (v > 0) return -v * std::log(v);
    if (v == 0) return T(0);
    return -std::numeric_limits<T>::infinity();
  }
};
struct Erfcx {
  static constexpr const char* kName = "erfcx_cpu";
  template <typename T>
  T operator()(T v) const {
    return special::erfcx(v);
  }
};
// PyTorch composes ndtr from tensor ops, (1 + erf(x / sqrt(2))) * 0.5, each rounded to T.
struct Ndtr {
  static constexpr const char* kName = "ndtr";
  template <typename T>
  T operator()(T v) const {
    return (T(1) + std::erf(v / static_cast<T>(std::numbers::sqrt2))) * T(0.5);
  }
};
struct Ndtri {
  static constexpr const char* kName = "ndtri_cpu";
  template <typename T>
  T operator()(T v) const {
    return special::ndtri(v);
  }
};
struct LogNdtr {
  static constexpr const char* kName = "log_ndtr_cpu";
  template <typename T>
  T operator()(T v) const {
    return special::log_ndtr(v);
  }
};

template <typename F>
void unary(Stack& s) {
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(float_unary(x, F::kName, F{}));
}

template <typename F>
void unary_(Stack& s) {
  IValue self = pop(s);
  const Tensor& x = self.to_tensor();
  check_float_self(x);
  push_in_place(s, self, float_unary(x, F::kName, F{}));
}

// polygamma(int n, Tensor self) and polygamma_(Tensor self, int n).
Tensor polygamma_of(const Tensor& x, std::int64_t n) {
  if (n < 0) fail("polygamma(n, x) does not support negative n.");
  return float_unary(x, "polygamma", [n](auto v) { return special::polygamma(n, v); });
}
void polygamma(Stack& s) {
  const Tensor x = pop(s).to_tensor();
  const std::int64_t n = pop(s).to_int();
  s.emplace_back(polygamma_of(x, n));
}
void polygamma_(Stack& s) {
  const std::int64_t n = pop(s).to_int();
  IValue self = pop(s);
  const Tensor& x = self.to_tensor();
  if (n < 0) fail("polygamma(n, x) does not support negative n.");
  check_float_self(x);
  push_in_place(s, self, polygamma_of(x, n));
}

// mvlgamma(self, p): the log multivariate gamma, sum_j lgamma(x - j / 2) over j < p plus
// p (p - 1) / 4 log(pi), in PyTorch's order (the terms from -(p - 1) / 2 up, the constant
// added last in T).
Tensor mvlgamma_of(const Tensor& x, std::int64_t p) {
  if (x.dtype() == DType::kBool) fail("The input tensor may not be a boolean tensor.");
  if (p < 1) fail("p has to be greater than or equal to 1");
  // PyTorch forms the p terms of every element as one tensor: a p no memory holds fails so
  // here too, rather than looping 2^63 times.
  const std::int64_t terms[] = {x.numel(), p};
  tensor::checked_nbytes(terms, is_floating(x.dtype()) ? x.dtype() : DType::kFloat32);
  const double constant =
      static_cast<double>(p) * static_cast<double>(p - 1) * std::log(std::numbers::pi) * 0.25;
  return float_unary(x, "mvlgamma", [p, constant](auto v) {
    using T = decltype(v);
    T sum = 0;
    for (std::int64_t j = 0; j < p; ++j) {
      sum += std::lgamma(static_cast<T>(static_cast<double>(j - p + 1) * 0.5) + v);
    }
    return sum + static_cast<T>(constant);
  });
}
void mvlgamma(Stack& s) {
  const std::int64_t p = pop(s).to_int();
  const Tensor x = pop(s).to_tensor();
  s.emplace_back(mvlgamma_of(x, p));
}
void mvlgamma_(Stack& s) {
  const std::int64_t p = pop(s).to_int();
  IValue self = pop(s);
  const Tensor& x = self.to_tensor();
  if (x.dtype() != DType::kBool && p >= 1 && !is_floating(x.dtype())) {
    // PyTorch builds the offsets with arange in self's dtype, whose step 0.5 truncates to 0.
    fail("step must be nonzero");
  }
  push_in_place(s, self, mvlgamma_of(x, p));
}

// f(a, b) over the broadcast operands in their promoted dtype, float32 for integers and bools.
template <typename F>
Tensor float_binary(const Tensor& a, const Tensor& b, const char* kernel, F f) {
  DType dtype = ResultType().tensor(a).tensor(b).result();
  if (!is_floating(dtype)) dtype = DType::kFloat32;
  return dispatch_floating(dtype, kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(a, b, [&f](T x, T y) { return static_cast<T>(f(x, y)); });
  });
}

// x log1p(y), 0 where x is 0 (and y is not NaN).
struct Xlog1py {
  static constexpr const char* kName = "xlog1py_cpu";
  template <typename T>
  T operator()(T x, T y) const {
    if (std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
    if (x == 0) return T(0);
    return x * std::log1p(y);
  }
};
struct Zeta {
  static constexpr const char* kName = "zeta_cpu";
  template <typename T>
  T operator()(T x, T q) const {
    return special::zeta(x, q);
  }
};

template <typename F>
void binary_tensors(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(float_binary(self.to_tensor(), other.to_tensor(), F::kName, F{}));
}
template <typename F>
void binary_other_scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  s.emplace_back(float_binary(a, wrapped_scalar(other, a), F::kName, F{}));
}
template <typename F>
void binary_self_scalar(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& b = other.to_tensor();
  s.emplace_back(float_binary(wrapped_scalar(self, b), b, F::kName, F{}));
}

// igamma / igammac: floating operands only (no promotion of integers), as PyTorch's dispatch.
struct Igamma {
  static constexpr const char* kName = "igamma_cpu";
  template <typename T>
  T operator()(T a, T x) const {
    return special::igamma(a, x);
  }
};
struct Igammac {
  static constexpr const char* kName = "igammac_cpu";
  template <typename T>
  T operator()(T a, T x) const {
    return special::igammac(a, x);
  }
};
template <typename F>
void floating_binary(Stack& s) {
  IValue other = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  const Tensor& b = other.to_tensor();
  const DType dtype = ResultType().tensor(a).tensor(b).result();
  s.emplace_back(dispatch_floating(dtype, F::kName, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(a, b, [](T x, T y) { return F{}(x, y); });
  }));
}

}  // namespace

void register_special_function_ops(OperatorRegistry& r) {
  r.add({"aten::erfinv", 1, {}, unary<Erfinv>});
  r.add({"aten::erfinv_", 1, {}, unary_<Erfinv>});
  r.add({"aten::lgamma", 1, {}, unary<Lgamma>});
  r.add({"aten::lgamma_", 1, {}, unary_<Lgamma>});
  r.add({"aten::digamma", 1, {}, unary<Digamma>});
  r.add({"aten::digamma_", 1, {}, unary_<Digamma>});
  r.add({"aten::i0", 1, {}, unary<I0>});
  r.add({"aten::i0_", 1, {}, unary_<I0>});
  r.add({"aten::polygamma", 2, {}, polygamma});
  r.add({"aten::polygamma_", 2, {}, polygamma_});
  r.add({"aten::mvlgamma", 2, {}, mvlgamma});
  r.add({"aten::mvlgamma_", 2, {}, mvlgamma_});
  r.add({"aten::special_i0e", 1, {}, unary<I0e>});
  r.add({"aten::special_i1", 1, {}, unary<I1>});
  r.add({"aten::special_i1e", 1, {}, unary<I1e>});
  r.add({"aten::special_entr", 1, {}, unary<Entr>});
  r.add({"aten::special_erfcx", 1, {}, unary<Erfcx>});
  r.add({"aten::special_ndtr", 1, {}, unary<Ndtr>});
  r.add({"aten::special_ndtri", 1, {}, unary<Ndtri>});
  r.add({"aten::special_log_ndtr", 1, {}, unary<LogNdtr>});
  r.add({"aten::special_xlog1py", 2, {}, binary_tensors<Xlog1py>});
  r.add({"aten::special_xlog1py.other_scalar", 2, {}, binary_other_scalar<Xlog1py>});
  r.add({"aten::special_xlog1py.self_scalar", 2, {}, binary_self_scalar<Xlog1py>});
  r.add({"aten::special_zeta", 2, {}, binary_tensors<Zeta>});
  r.add({"aten::special_zeta.other_scalar", 2, {}, binary_other_scalar<Zeta>});
  r.add({"aten::special_zeta.self_scalar", 2, {}, binary_self_scalar<Zeta>});
  r.add({"aten::igamma", 2, {}, floating_binary<Igamma>});
  r.add({"aten::igammac", 2, {}, floating_binary<Igammac>});

  // torch.special's other names (TorchScript usually records the base operator already);
  // register_kernel_families registers this family after those it aliases.
  const std::pair<const char*, const char*> aliases[] = {
      {"special_gammaln", "lgamma"},
      {"special_digamma", "digamma"},
      {"special_psi", "digamma"},
      {"special_polygamma", "polygamma"},
      {"special_multigammaln", "mvlgamma"},
      {"special_i0", "i0"},
      {"special_erfinv", "erfinv"},
      {"special_erf", "erf"},
      {"special_erfc", "erfc"},
      {"special_expit", "sigmoid"},
      {"special_logit", "logit"},
      {"special_sinc", "sinc"},
      {"special_exp2", "exp2"},
      {"special_expm1", "expm1"},
      {"special_log1p", "log1p"},
      {"special_softmax", "softmax.int"},
      {"special_log_softmax", "log_softmax.int"},
      {"special_logsumexp", "logsumexp"},
      {"special_xlogy", "xlogy.Tensor"},
      {"special_xlogy.other_scalar", "xlogy.Scalar_Other"},
      {"special_xlogy.self_scalar", "xlogy.Scalar_Self"},
      {"special_gammainc", "igamma"},
      {"special_gammaincc", "igammac"}};
  for (const auto& [alias, base] : aliases) {
    add_alias(r, std::string("aten::") + alias, std::string("aten::") + base);
  }
  // special_round(self, *, int decimals=0): round.decimals, whose decimals has no default.
  const std::vector<IValue> no_decimals{IValue(std::int64_t{0})};
  add_alias(r, "aten::special_round", "aten::round.decimals", &no_decimals);
}

}  // namespace symbolite::ops
