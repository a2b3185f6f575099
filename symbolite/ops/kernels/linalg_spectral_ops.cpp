// What PyTorch 1.13 composes of the decompositions (linalg_decomposition_ops.cpp), in its
// order of checks and with its tolerances: linalg_pinv (SVD, or eigh when Hermitian;
// reciprocals of the singular values above max(atol, rtol * largest)), pinverse,
// linalg_matrix_rank (how many are above that), linalg_matrix_norm (fro and 1 / inf through
// linalg_vector_norm, nuc and 2 / -2 from the singular values) and linalg_norm.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/batched_matrices.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

IValue double_scalar(double v) { return scalar_tensor(IValue(v), DType::kFloat64); }

IValue unsqueeze_last(const IValue& t) {
  return run_op("aten::unsqueeze", {t, IValue(std::int64_t{-1})});
}

// PyTorch's get_atol_rtol: atol 0 by default; rtol eps * max(m, n) unless given, or 0 when a
// positive atol is. Both 0-dim double tensors (or the caller's tensors).
std::pair<IValue, IValue> tolerances(const Tensor& a, IValue atol, IValue rtol) {
  if (rtol.is_none()) {
    if (a.dtype() != DType::kFloat32 && a.dtype() != DType::kFloat64) {
      fail("This function doesn't handle types other than float and double");
    }
    if (a.dim() == 0) {
      throw OpError("IndexError", "Dimension specified as -2 but tensor has no dimensions");
    }
    wrap_dim(-2, a.dim());  // PyTorch reads size(-2): IndexError for a vector
    const double eps = a.dtype() == DType::kFloat32 ? std::numeric_limits<float>::epsilon()
                                                    : std::numeric_limits<double>::epsilon();
    const double fallback = eps * static_cast<double>(std::max(rows_of(a), a.sizes().back()));
    rtol = atol.is_none()
               ? double_scalar(fallback)
               : run_op("aten::where.self", {run_op("aten::gt.Scalar", {atol, IValue(0.0)}),
                                             double_scalar(0.0), double_scalar(fallback)});
  }
  if (atol.is_none()) atol = double_scalar(0.0);
  return {atol, rtol};
}

// max(atol, rtol * largest): the threshold below which singular values count as zero.
IValue threshold(const IValue& atol, const IValue& rtol, const IValue& largest) {
  return run_op("aten::maximum", {unsqueeze_last(atol),
                                  run_op("aten::mul.Tensor", {unsqueeze_last(rtol), largest})});
}

// (values, largest value keeping the dimension): singular values, or the eigenvalues'
// magnitudes for a Hermitian input; `signed_values` the eigenvalues themselves.
struct Spectrum {
  IValue values, largest;
  Tensor signed_values, u, v;  // u and v only for pinv
};

Spectrum spectrum(const Tensor& a, bool hermitian, bool vectors) {
  Spectrum r;
  const IValue lower = IValue::string("L");
  const IValue last_dim(std::int64_t{-1});
  if (hermitian) {
    if (vectors) {
      std::vector<IValue> out = run_op_multi("aten::linalg_eigh", {a, lower});
      r.signed_values = out[0].to_tensor();
      r.u = out[1].to_tensor();
    } else {
      r.signed_values = run_op("aten::linalg_eigvalsh", {a, lower}).to_tensor();
    }
    r.v = r.u;
    r.values = run_op("aten::abs", {r.signed_values});
    r.largest = run_op("aten::amax", {r.values, IValue::list({last_dim}), IValue(true)});
  } else {
    if (vectors) {
      std::vector<IValue> out = run_op_multi("aten::svd", {a, IValue(true), IValue(true)});
      r.u = out[0].to_tensor();
      r.signed_values = out[1].to_tensor();
      r.v = out[2].to_tensor();
    } else {
      r.signed_values = run_op("aten::linalg_svdvals", {a, IValue()}).to_tensor();
    }
    r.values = IValue(r.signed_values);
    r.largest = run_op("aten::narrow",
                       {r.values, last_dim, IValue(std::int64_t{0}), IValue(std::int64_t{1})});
  }
  return r;
}

// V diag(1/s where s > tol, else 0) U^T, from the SVD (or eigh, U for both).
Tensor pinv_of(const Tensor& a, const IValue& atol_v, const IValue& rtol_v, bool hermitian) {
  const DType t = a.dtype();
  if ((t != DType::kFloat32 && t != DType::kFloat64) || a.dim() < 2) {
    fail(fmt::format(
        "linalg.pinv({}{{{}}}): expected a tensor with 2 or more dimensions of float, double, "
        "cfloat or cdouble types",
        tensor::scalar_type_name(t), tensor::format_sizes(a.sizes())));
  }
  auto [atol, rtol] = tolerances(a, atol_v, rtol_v);
  const std::int64_t m = rows_of(a), n = a.sizes().back();
  if (a.numel() == 0) return Tensor::empty(with_matrix(batch_shape(a), n, m), t);
  const Spectrum sp = spectrum(a, hermitian, true);
  const Tensor keep = run_op("aten::gt.Tensor", {sp.values, threshold(atol, rtol, sp.largest)})
                          .to_tensor()
                          .contiguous();
  // V's columns scaled by the kept reciprocals, then the product with U^T.
  Tensor scaled = Tensor::uninitialized(sp.v.sizes(), t);
  dispatch_floating(t, "linalg_pinv", [&](auto tag) {
    using T = decltype(tag);
    const Tensor vc = sp.v.contiguous(), sc = sp.signed_values.contiguous();
    const T* vd = vc.template data<T>();
    const T* sd = sc.template data<T>();
    const bool* kd = keep.data<bool>();
    T* out = scaled.template mutable_data<T>();
    const std::int64_t rows = rows_of(sp.v), cols = sp.v.sizes().back();
    for (std::int64_t i = 0; i < scaled.numel(); ++i) {
      const std::int64_t at = i / (rows * cols) * cols + i % cols;
      out[i] = vd[i] * (kd[at] ? T(1) / sd[at] : T(0));
    }
  });
  return run_op("aten::matmul", {scaled, matrix_transpose(sp.u)}).to_tensor();
}

// The float overloads hand their tolerances on as 0-dim double tensors, having settled the
// defaults first (PyTorch's order: so an integer input without rtol fails on epsilon).
std::pair<IValue, IValue> float_tolerances(const Tensor& a, const IValue& atol,
                                           const IValue& rtol) {
  if (!rtol.is_none()) {
    return {atol.is_none() ? double_scalar(0.0) : double_scalar(atol.to_double()),
            double_scalar(rtol.to_double())};
  }
  return tolerances(a, atol.is_none() ? atol : double_scalar(atol.to_double()), rtol);
}

// linalg_pinv.atol_rtol_float(self, *, atol=None, rtol=None, hermitian=False) and
// .atol_rtol_tensor(self, *, Tensor? atol, Tensor? rtol, hermitian)
template <bool kFloat>
void linalg_pinv(Stack& s) {
  IValue hermitian = pop(s), rtol = pop(s), atol = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  auto [at, rt] = kFloat ? float_tolerances(a, atol, rtol) : std::make_pair(atol, rtol);
  s.emplace_back(pinv_of(a, at, rt, hermitian.to_bool()));
}

// linalg_pinv(self, float rcond, hermitian=False) and .rcond_tensor: rcond is rtol, atol 0;
// pinverse(self, rcond=1e-15).
template <bool kFloat>
void linalg_pinv_rcond(Stack& s) {
  IValue hermitian = pop(s), rcond = pop(s), self = pop(s);
  s.emplace_back(pinv_of(self.to_tensor(), double_scalar(0.0),
                         kFloat ? double_scalar(rcond.to_double()) : rcond, hermitian.to_bool()));
}

void pinverse(Stack& s) {
  IValue rcond = pop(s), self = pop(s);
  s.emplace_back(
      pinv_of(self.to_tensor(), double_scalar(0.0), double_scalar(rcond.to_double()), false));
}

// How many singular values (eigenvalue magnitudes) exceed max(atol, rtol * largest), int64.
Tensor matrix_rank_of(const Tensor& a, IValue atol, IValue rtol, bool hermitian) {
  check_is_matrix(a, "torch.linalg.matrix_rank", "input");
  std::tie(atol, rtol) = tolerances(a, atol, rtol);
  if (a.numel() == 0) return Tensor::empty(batch_shape(a), DType::kInt64);
  const Spectrum sp = spectrum(a, hermitian, false);
  IValue above = run_op("aten::gt.Tensor", {sp.values, threshold(atol, rtol, sp.largest)});
  return run_op("aten::sum.dim_IntList",
                {above, IValue::list({IValue(std::int64_t{-1})}), IValue(false), IValue()})
      .to_tensor();
}

// linalg_matrix_rank.atol_rtol_tensor / .atol_rtol_float(input, *, atol, rtol, hermitian)
template <bool kFloat>
void linalg_matrix_rank(Stack& s) {
  IValue hermitian = pop(s), rtol = pop(s), atol = pop(s), self = pop(s);
  const Tensor& a = self.to_tensor();
  if (kFloat) {
    if (!atol.is_none()) atol = double_scalar(atol.to_double());
    if (!rtol.is_none()) rtol = double_scalar(rtol.to_double());
  }
  s.emplace_back(matrix_rank_of(a, atol, rtol, hermitian.to_bool()));
}

// linalg_matrix_rank(self, float tol, hermitian=False) and .tol_tensor: tol is atol, rtol 0.
template <bool kFloat>
void linalg_matrix_rank_tol(Stack& s) {
  IValue hermitian = pop(s), tol = pop(s), self = pop(s);
  s.emplace_back(matrix_rank_of(self.to_tensor(), kFloat ? double_scalar(tol.to_double()) : tol,
                                double_scalar(0.0), hermitian.to_bool()));
}

// ---- Matrix norms --------------------------------------------------------------------------

// _linalg_matrix_norm_checks; returns `dims` wrapped.
Ints matrix_norm_checks(const Tensor& a, const Ints& dims, const IValue& dtype, bool low_ok) {
  check_is_matrix(a, "linalg.matrix_norm");
  check_floating(a, "linalg.matrix_norm", low_ok);
  if (dims.size() != 2) {
    fail(fmt::format("linalg.matrix_norm: dim must be a 2-tuple. Got {}", fmt::join(dims, " ")));
  }
  Ints wrapped{wrap_dim(dims[0], a.dim()), wrap_dim(dims[1], a.dim())};
  if (wrapped[0] == wrapped[1]) {
    fail(fmt::format("linalg.matrix_norm: dims must be different. Got ({}, {})", wrapped[0],
                     wrapped[1]));
  }
  if (std::optional<DType> d = dtype_arg(dtype)) {
    if (!is_floating(*d)) {
      fail(fmt::format("linalg.matrix_norm: dtype should be floating point or complex, but got {}",
                       tensor::scalar_type_name(*d)));
    }
    if (promote_types(a.dtype(), *d) != *d) {
      fail(fmt::format(
          "linalg.matrix_norm: the dtype of the input ({}) should be convertible without "
          "narrowing to the specified dtype ({})",
          tensor::scalar_type_name(a.dtype()), tensor::scalar_type_name(*d)));
    }
  }
  return wrapped;
}

// f of the singular values of the matrices over `dims` (moved last), reduced over them and
// put back in place with keepdim.
IValue over_singular_values(const IValue& a_v, const Ints& dims, bool keepdim, const IValue& dtype,
                            const char* reduction) {
  const IValue a = dtype.is_none() ? a_v : run_op("aten::to.dtype", {a_v, dtype});
  const std::int64_t ndim = a.to_tensor().dim();
  Ints perm;
  for (std::int64_t d = 0; d < ndim; ++d) {
    if (d != dims[0] && d != dims[1]) perm.push_back(d);
  }
  perm.push_back(dims[0]);
  perm.push_back(dims[1]);
  const IValue moved = run_op("aten::permute", {a, int_list_value(perm)});
  const IValue values = run_op("aten::linalg_svdvals", {moved, IValue()});
  IValue last = IValue::list({IValue(std::int64_t{-1})});
  IValue result = std::string_view(reduction) == "aten::sum.dim_IntList"
                      ? run_op(reduction, {values, last, IValue(keepdim), IValue()})
                      : run_op(reduction, {values, last, IValue(keepdim)});
  if (!keepdim) return result;
  Ints inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<std::int64_t>(i);
  return run_op("aten::permute", {unsqueeze_last(result), int_list_value(inverse)});
}

IValue matrix_norm_number(const IValue& a_v, double ord, const Ints& dim_in, bool keepdim,
                          const IValue& dtype) {
  const double abs_ord = std::abs(ord);
  if (abs_ord != 2.0 && abs_ord != 1.0 && !std::isinf(abs_ord)) {
    fail(fmt::format("linalg.matrix_norm: Order {} not supported.", ord));
  }
  Ints dims = matrix_norm_checks(a_v.to_tensor(), dim_in, dtype, abs_ord != 2.0);
  const char* extreme = ord > 0 ? "aten::amax" : "aten::amin";
  if (abs_ord == 2.0) return over_singular_values(a_v, dims, keepdim, dtype, extreme);
  if (std::isinf(abs_ord)) std::swap(dims[0], dims[1]);  // the 1-norm of the transpose
  if (!keepdim && dims[0] < dims[1]) --dims[1];
  IValue sums = run_op("aten::linalg_vector_norm",
                       {a_v, IValue(1.0), IValue::list({IValue(dims[0])}), IValue(keepdim), dtype});
  return run_op(extreme, {sums, IValue::list({IValue(dims[1])}), IValue(keepdim)});
}

IValue matrix_norm_string(const IValue& a_v, const std::string& ord, const Ints& dim_in,
                          bool keepdim, const IValue& dtype) {
  if (ord != "fro" && ord != "nuc") {
    fail(fmt::format("linalg.matrix_norm: Order {} not supported.", ord));
  }
  const Ints dims = matrix_norm_checks(a_v.to_tensor(), dim_in, dtype, ord != "nuc");
  if (ord == "fro") {
    return run_op("aten::linalg_vector_norm",
                  {a_v, IValue(2.0), int_list_value(dims), IValue(keepdim), dtype});
  }
  return over_singular_values(a_v, dims, keepdim, dtype, "aten::sum.dim_IntList");
}

// linalg_matrix_norm(self, Scalar ord, dim=[-2, -1], keepdim=False, *, dtype=None)
void linalg_matrix_norm(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), ord = pop(s), self = pop(s);
  s.push_back(
      matrix_norm_number(self, ord.to_double(), int_list_arg(dim), keepdim.to_bool(), dtype));
}

// linalg_matrix_norm.str_ord(self, ord="fro", ...)
void linalg_matrix_norm_str(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), ord = pop(s), self = pop(s);
  s.push_back(
      matrix_norm_string(self, ord.to_string(), int_list_arg(dim), keepdim.to_bool(), dtype));
}

// nuclear_norm(self, keepdim=False) and .dim(self, dim, keepdim): the matrix norm "nuc" (what
// torch.norm(x, p="nuc") calls), over the last two dimensions unless told.
void nuclear_norm(Stack& s) {
  IValue keepdim = pop(s), self = pop(s);
  if (self.to_tensor().dim() != 2) {
    fail(
        fmt::format("Expected a tensor with 2 dimensions, but got a tensor with {} dimension{} "
                    "instead.",
                    self.to_tensor().dim(), self.to_tensor().dim() == 1 ? "" : "s"));
  }
  s.push_back(matrix_norm_string(self, "nuc", {-2, -1}, keepdim.to_bool(), IValue()));
}
void nuclear_norm_dim(Stack& s) {
  IValue keepdim = pop(s), dim = pop(s), self = pop(s);
  s.push_back(matrix_norm_string(self, "nuc", int_list_arg(dim), keepdim.to_bool(), IValue()));
}

// linalg_norm(self, Scalar? ord=None, int[1]? dim=None, keepdim=False, *, dtype=None): a
// matrix norm for an order with two dimensions (given, or those of a matrix), else the
// vector norm.
void linalg_norm(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), ord = pop(s), self = pop(s);
  const std::int64_t ndim = self.to_tensor().dim();
  std::optional<Ints> dims = optional_int_list_arg(dim);
  if (dims && dims->size() != 1 && dims->size() != 2) {
    fail(fmt::format("linalg.norm: If dim is specified, it must be of length 1 or 2. Got [{}]",
                     fmt::join(*dims, ", ")));
  }
  if (!dims && !ord.is_none() && ndim != 1 && ndim != 2) {
    fail(fmt::format(
        "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.",
        ndim));
  }
  if (!ord.is_none() && ((dims && dims->size() == 2) || (!dims && ndim == 2))) {
    s.push_back(matrix_norm_number(self, ord.to_double(), dims ? *dims : Ints{0, 1},
                                   keepdim.to_bool(), dtype));
    return;
  }
  s.push_back(run_op("aten::linalg_vector_norm",
                     {self, ord.is_none() ? IValue(2.0) : ord, dim, keepdim, dtype}));
}

// linalg_norm.ord_str(self, str ord, int[1]? dim=None, keepdim=False, *, dtype=None)
void linalg_norm_str(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), ord = pop(s), self = pop(s);
  const std::int64_t ndim = self.to_tensor().dim();
  std::optional<Ints> dims = optional_int_list_arg(dim);
  if (dims && dims->size() != 1 && dims->size() != 2) {
    // PyTorch 1.13's wording, "mut" included.
    fail(fmt::format("linalg.norm: If dim is specified, it mut be of length 1 or 2. Got [{}]",
                     fmt::join(*dims, ", ")));
  }
  if (!dims && ndim != 1 && ndim != 2) {
    fail(fmt::format(
        "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.",
        ndim));
  }
  s.push_back(matrix_norm_string(self, ord.to_string(), dims ? *dims : Ints{0, 1},
                                 keepdim.to_bool(), dtype));
}

}  // namespace

void register_linalg_spectral_ops(OperatorRegistry& r) {
  const IValue none, no(false);
  r.add({"aten::linalg_pinv.atol_rtol_float", 4, {none, none, no}, linalg_pinv<true>});
  r.add({"aten::linalg_pinv.atol_rtol_tensor", 4, {none, none, no}, linalg_pinv<false>});
  r.add({"aten::linalg_pinv", 3, {no}, linalg_pinv_rcond<true>});
  r.add({"aten::linalg_pinv.rcond_tensor", 3, {no}, linalg_pinv_rcond<false>});
  r.add({"aten::pinverse", 2, {IValue(1e-15)}, pinverse});
  r.add(
      {"aten::linalg_matrix_rank.atol_rtol_float", 4, {none, none, no}, linalg_matrix_rank<true>});
  r.add({"aten::linalg_matrix_rank.atol_rtol_tensor",
         4,
         {none, none, no},
         linalg_matrix_rank<false>});
  r.add({"aten::linalg_matrix_rank", 3, {no}, linalg_matrix_rank_tol<true>});
  r.add({"aten::linalg_matrix_rank.tol_tensor", 3, {no}, linalg_matrix_rank_tol<false>});
  const IValue last_two = IValue::list({IValue(std::int64_t{-2}), IValue(std::int64_t{-1})});
  r.add({"aten::linalg_matrix_norm", 5, {last_two, no, none}, linalg_matrix_norm});
  r.add({"aten::linalg_matrix_norm.str_ord",
         5,
         {IValue::string("fro"), last_two, no, none},
         linalg_matrix_norm_str});
  r.add({"aten::linalg_norm", 5, {none, none, no, none}, linalg_norm});
  r.add({"aten::linalg_norm.ord_str", 5, {none, no, none}, linalg_norm_str});
  r.add({"aten::nuclear_norm", 2, {no}, nuclear_norm});
  r.add({"aten::nuclear_norm.dim", 3, {no}, nuclear_norm_dim});
}

}  // namespace symbolite::ops
