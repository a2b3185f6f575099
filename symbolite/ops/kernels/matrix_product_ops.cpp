// Products built from matrix products: tensordot, kron, addmv, addr, addbmm (their in-place
// forms are in in_place_ops.cpp), linalg.multi_dot and chain_matmul. Each follows PyTorch 1.13's own
// composition (the same products in the same order, so the same roundings) with its checks
// and messages.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

bool is_zero(const IValue& scalar) { return scalar.to_double() == 0.0; }

// tensordot(a, b, dims_a, dims_b): a's free dimensions, then b's, contracted over the pairs
// of listed dimensions; a listed dimension of size 1 against a larger one is summed first.
IValue tensordot_impl(const IValue& a_v, const IValue& b_v, const Ints& dims_a,
                      const Ints& dims_b) {
  if (dims_a.size() != dims_b.size()) fail("both dimension lists should have same length");
  const Tensor& a = a_v.to_tensor();
  const Tensor& b = b_v.to_tensor();
  IValue t1 = a_v, t2 = b_v;
  std::int64_t contracted = 1;
  for (std::size_t i = 0; i < dims_a.size(); ++i) {
    const std::int64_t da = wrap_dim(dims_a[i], a.dim()), db = wrap_dim(dims_b[i], b.dim());
    const std::int64_t s1 = a.sizes()[static_cast<std::size_t>(da)];
    const std::int64_t s2 = b.sizes()[static_cast<std::size_t>(db)];
    if (s2 == 1) {
      t1 = run_op("aten::sum.dim_IntList", {t1, int_list_value({dims_a[i]}), IValue(true), {}});
    } else if (s1 == 1) {
      t2 = run_op("aten::sum.dim_IntList", {t2, int_list_value({dims_b[i]}), IValue(true), {}});
    } else {
      if (s1 != s2) {
        fail(
            fmt::format("contracted dimensions need to match, but first has size {} in dim {} "
                        "and second has size {} in dim {}",
                        s1, dims_a[i], s2, dims_b[i]));
      }
      contracted *= s1;
    }
  }
  auto listed = [](const Ints& dims, std::int64_t ndim) {
    std::vector<bool> in(static_cast<std::size_t>(ndim), false);
    for (std::int64_t d : dims) {
      const auto w = static_cast<std::size_t>(wrap_dim(d, ndim));
      if (in[w]) fail(fmt::format("dim {} appears multiple times in the list of dims", w));
      in[w] = true;
    }
    return in;
  };
  const std::vector<bool> in_a = listed(dims_a, a.dim()), in_b = listed(dims_b, b.dim());
  Ints perm_a, perm_b, result_sizes;
  std::int64_t free_a = 1, free_b = 1;
  const Tensor& s1 = t1.to_tensor();
  const Tensor& s2 = t2.to_tensor();
  for (std::int64_t d = 0; d < a.dim(); ++d) {
    if (in_a[static_cast<std::size_t>(d)]) continue;
    perm_a.push_back(d);
    free_a *= s1.sizes()[static_cast<std::size_t>(d)];
    result_sizes.push_back(s1.sizes()[static_cast<std::size_t>(d)]);
  }
  perm_a.insert(perm_a.end(), dims_a.begin(), dims_a.end());
  perm_b.insert(perm_b.end(), dims_b.begin(), dims_b.end());
  for (std::int64_t d = 0; d < b.dim(); ++d) {
    if (in_b[static_cast<std::size_t>(d)]) continue;
    perm_b.push_back(d);
    free_b *= s2.sizes()[static_cast<std::size_t>(d)];
    result_sizes.push_back(s2.sizes()[static_cast<std::size_t>(d)]);
  }
  IValue m1 = run_op("aten::reshape", {run_op("aten::permute", {t1, int_list_value(perm_a)}),
                                       int_list_value({free_a, contracted})});
  IValue m2 = run_op("aten::reshape", {run_op("aten::permute", {t2, int_list_value(perm_b)}),
                                       int_list_value({contracted, free_b})});
  return run_op("aten::reshape", {run_op("aten::mm", {m1, m2}), int_list_value(result_sizes)});
}

void tensordot(Stack& s) {
  IValue dims_b = pop(s), dims_a = pop(s), b = pop(s), a = pop(s);
  s.push_back(tensordot_impl(a, b, int_list_arg(dims_a), int_list_arg(dims_b)));
}

// kron(a, b): both viewed with their dimensions interleaved with ones ([a0, 1, a1, 1] and
// [1, b0, 1, b1], the shorter one padded in front), multiplied, and merged pairwise.
void kron(Stack& s) {
  IValue b_v = pop(s), a_v = pop(s);
  const Tensor& a = a_v.to_tensor();
  const Tensor& b = b_v.to_tensor();
  const std::int64_t ndim = std::max(a.dim(), b.dim());
  Ints shape_a, shape_b, shape_out;
  for (std::int64_t i = 0; i < ndim; ++i) {
    const std::int64_t sa =
        i >= ndim - a.dim() ? a.sizes()[static_cast<std::size_t>(i - ndim + a.dim())] : 1;
    const std::int64_t sb =
        i >= ndim - b.dim() ? b.sizes()[static_cast<std::size_t>(i - ndim + b.dim())] : 1;
    shape_a.insert(shape_a.end(), {sa, 1});
    shape_b.insert(shape_b.end(), {1, sb});
    shape_out.push_back(sa * sb);
  }
  IValue product =
      run_op("aten::mul.Tensor", {run_op("aten::reshape", {a_v, int_list_value(shape_a)}),
                                  run_op("aten::reshape", {b_v, int_list_value(shape_b)})});
  s.push_back(run_op("aten::reshape", {product, int_list_value(shape_out)}));
}

// addmv(self, mat, vec, beta, alpha): beta * self + alpha * mat @ vec, as one matrix product
// with a one-column right side (PyTorch's gemv); self of one element broadcasts.
IValue addmv_impl(const IValue& self_v, const IValue& mat_v, const IValue& vec_v,
                  const IValue& beta, const IValue& alpha) {
  const Tensor& self = self_v.to_tensor();
  const Tensor& mat = mat_v.to_tensor();
  const Tensor& vec = vec_v.to_tensor();
  if (mat.dim() != 2 || vec.dim() != 1 || self.dim() > 1) {
    fail(fmt::format("vector + matrix @ vector expected, got {}, {}, {}", self.dim(), mat.dim(),
                     vec.dim()));
  }
  const std::int64_t rows = mat.sizes()[0], cols = mat.sizes()[1];
  if (cols != vec.sizes()[0] || (rows != self.numel() && self.numel() != 1)) {
    fail(fmt::format("size mismatch, got {}, {}x{},{}", self.dim() == 0 ? 1 : self.sizes()[0], rows,
                     cols, vec.sizes()[0]));
  }
  IValue column = run_op("aten::reshape", {self_v, int_list_value({-1, 1})});
  IValue out = run_op(
      "aten::addmm",
      {column, mat_v, run_op("aten::reshape", {vec_v, int_list_value({cols, 1})}), beta, alpha});
  return run_op("aten::reshape", {out, int_list_value({rows})});
}

void addmv(Stack& s) {
  IValue alpha = pop(s), beta = pop(s), vec = pop(s), mat = pop(s), self = pop(s);
  s.push_back(addmv_impl(self, mat, vec, beta, alpha));
}

// addr(self, vec1, vec2, beta, alpha): beta * self + alpha * vec1 (x) vec2, element by element
// as PyTorch's kernel writes it (alpha * v1 * v2; self not read when beta is 0; bools as
// and / or).
void addr(Stack& s) {
  IValue alpha = pop(s), beta = pop(s), vec2_v = pop(s), vec1_v = pop(s), self_v = pop(s);
  const Tensor& vec1 = vec1_v.to_tensor();
  const Tensor& vec2 = vec2_v.to_tensor();
  for (const auto& [t, name] : {std::pair{&vec1, "vec1"}, std::pair{&vec2, "vec2"}}) {
    if (t->dim() != 1) {
      fail(fmt::format("addr: Expected 1-D argument {}, but got {}-D", name, t->dim()));
    }
  }
  const Ints shape{vec1.sizes()[0], vec2.sizes()[0]};
  const Tensor self =
      run_op("aten::expand", {self_v, int_list_value(shape), IValue(false)}).to_tensor();
  const DType dtype = ResultType().tensor(self_v.to_tensor()).tensor(vec1).tensor(vec2).result();
  const Tensor a = to_dtype(self.contiguous(), dtype), u = to_dtype(vec1.contiguous(), dtype),
               v = to_dtype(vec2.contiguous(), dtype);
  // PyTorch's check_addr_scalar, beta's first.
  for (const auto& [scalar, name] : {std::pair{&beta, "beta"}, std::pair{&alpha, "alpha"}}) {
    if (scalar->is(IValue::Kind::kBool) && dtype != DType::kBool) {
      fail(fmt::format("Boolean {} only supported for Boolean results.", name));
    }
    if (!is_floating(dtype) && scalar->is(IValue::Kind::kDouble)) {
      fail(
          fmt::format("For integral input tensors, argument {} must not be a floating point "
                      "number.",
                      name));
    }
  }
  Tensor out = Tensor::uninitialized(shape, dtype);
  const bool keep_self = !is_zero(beta);
  dispatch_all(dtype, "addr_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T b = checked_value<T>(beta), al = checked_value<T>(alpha);
    const T* x = a.template data<T>();
    const T* p = u.template data<T>();
    const T* q = v.template data<T>();
    T* o = out.template mutable_data<T>();
    for (std::int64_t i = 0; i < shape[0]; ++i) {
      for (std::int64_t j = 0; j < shape[1]; ++j) {
        const std::int64_t k = i * shape[1] + j;
        if constexpr (std::is_same_v<T, bool>) {
          o[k] = (keep_self && b && x[k]) || (al && p[i] && q[j]);
        } else {
          const T product = static_cast<T>(al * p[i] * q[j]);
          o[k] = keep_self ? static_cast<T>(b * x[k] + product) : product;
        }
      }
    }
  });
  s.emplace_back(std::move(out));
}

// addbmm(self, batch1, batch2, beta, alpha): beta * self + alpha * the sum of the batch's
// products, accumulated product by product as PyTorch's loop of addmm_ does.
IValue addbmm_impl(const IValue& self_v, const IValue& b1_v, const IValue& b2_v, const IValue& beta,
                   const IValue& alpha) {
  const Tensor& b1 = b1_v.to_tensor();
  const Tensor& b2 = b2_v.to_tensor();
  // PyTorch expands self before it checks the batches.
  const std::int64_t rows = b1.dim() > 1 ? b1.sizes()[1] : 1;
  const std::int64_t cols = b2.dim() > 2 ? b2.sizes()[2] : 1;
  IValue self = run_op("aten::expand", {self_v, int_list_value({rows, cols}), IValue(false)});
  if (b1.dim() != 3) fail("batch1 must be a 3D tensor");
  if (b2.dim() != 3) fail("batch2 must be a 3D tensor");
  if (b1.sizes()[0] != b2.sizes()[0]) {
    fail(fmt::format("batch1 and batch2 must have same number of batches, got {} and {}",
                     b1.sizes()[0], b2.sizes()[0]));
  }
  if (b1.sizes()[2] != b2.sizes()[1]) {
    fail(fmt::format("Incompatible matrix sizes for bmm ({}x{} and {}x{})", b1.sizes()[1],
                     b1.sizes()[2], b2.sizes()[1], b2.sizes()[2]));
  }
  const std::int64_t batches = b1.sizes()[0];
  if (batches == 0) {
    return is_zero(beta) ? run_op("aten::zeros_like", {self, {}, {}, {}, {}, {}})
                         : run_op("aten::mul.Scalar", {self, beta});
  }
  IValue out = self;
  IValue step_beta = beta;
  for (std::int64_t i = 0; i < batches; ++i) {
    IValue m1 = run_op("aten::select.int", {b1_v, IValue(0), IValue(i)});
    IValue m2 = run_op("aten::select.int", {b2_v, IValue(0), IValue(i)});
    out = run_op("aten::addmm", {out, m1, m2, step_beta, alpha});
    step_beta = IValue(1);
  }
  return out;
}

void addbmm(Stack& s) {
  IValue alpha = pop(s), beta = pop(s), b2 = pop(s), b1 = pop(s), self = pop(s);
  s.push_back(addbmm_impl(self, b1, b2, beta, alpha));
}

// The split points of the cheapest order to multiply matrices of sizes p[i] x p[i + 1]
// (the textbook dynamic program; ties keep the first split, as PyTorch's does).
std::vector<Ints> matrix_chain_order(const Ints& p) {
  const std::size_t n = p.size() - 1;
  std::vector<Ints> cost(n, Ints(n, 0)), split(n, Ints(n, 0));
  for (std::size_t len = 1; len < n; ++len) {
    for (std::size_t i = 0; i + len < n; ++i) {
      const std::size_t j = i + len;
      cost[i][j] = std::numeric_limits<std::int64_t>::max();
      for (std::size_t k = i; k < j; ++k) {
        const std::int64_t q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
        if (q < cost[i][j]) {
          cost[i][j] = q;
          split[i][j] = static_cast<std::int64_t>(k);
        }
      }
    }
  }
  return split;
}

IValue chain_product(const std::vector<IValue>& m, const std::vector<Ints>& split, std::size_t i,
                     std::size_t j) {
  if (i == j) return m[i];
  const auto k = static_cast<std::size_t>(split[i][j]);
  return run_op("aten::mm", {chain_product(m, split, i, k), chain_product(m, split, k + 1, j)});
}

// linalg.multi_dot(tensors): a 1-D first (last) tensor is a row (column); 2 matrices multiply
// directly, 3 in the cheaper of the two orders, more in the cheapest order.
IValue multi_dot_impl(const std::vector<Tensor>& in) {
  const std::size_t n = in.size();
  if (n < 2) fail(fmt::format("multi_dot(): expected at least 2 tensors but got {}", n));
  Ints out_shape;
  std::vector<IValue> m(in.begin(), in.end());
  for (const bool first : {true, false}) {
    const Tensor& t = first ? in.front() : in.back();
    IValue& at = first ? m.front() : m.back();
    if (t.dim() == 1) {
      at = run_op("aten::unsqueeze", {at, IValue(first ? 0 : -1)});
    } else if (t.dim() == 2) {
      out_shape.push_back(t.sizes()[first ? 0 : 1]);
    } else {
      fail(fmt::format("multi_dot(): the {} tensor must be 1D or 2D but got {}D",
                       first ? "first" : "last", t.dim()));
    }
  }
  for (std::size_t i = 1; i + 1 < n; ++i) {
    if (in[i].dim() != 2) {
      fail(fmt::format("multi_dot(): tensor {} must be 2D but got {}D", i, in[i].dim()));
    }
  }
  for (std::size_t i = 1; i < n; ++i) {
    if (in[i].dtype() != in[0].dtype()) {
      fail(fmt::format(
          "multi_dot(): all tensors must have be the same dtype but tensor 0 is {} and tensor "
          "{} {}",
          tensor::type_meta_name(in[0].dtype()), i, tensor::type_meta_name(in[i].dtype())));
    }
    const Tensor& left = m[i - 1].to_tensor();
    if (left.sizes().back() != m[i].to_tensor().sizes()[0]) {
      fail(fmt::format("multi_dot(): tensors {} and {} with shapes {} and {} cannot be multiplied",
                       i - 1, i, tensor::format_sizes(in[i - 1].sizes()),
                       tensor::format_sizes(in[i].sizes())));
    }
  }
  IValue result;
  if (n == 2) {
    result = run_op("aten::mm", {m[0], m[1]});
  } else if (n == 3) {
    const std::int64_t a = m[0].to_tensor().sizes()[0], b = m[1].to_tensor().sizes()[0],
                       c = m[2].to_tensor().sizes()[0], d = m[2].to_tensor().sizes()[1];
    const std::int64_t left_first = (a * c) * (b + d), right_first = (b * d) * (a + c);
    result = left_first > right_first
                 ? run_op("aten::mm", {m[0], run_op("aten::mm", {m[1], m[2]})})
                 : run_op("aten::mm", {run_op("aten::mm", {m[0], m[1]}), m[2]});
  } else {
    Ints p;
    for (const IValue& t : m) p.push_back(t.to_tensor().sizes()[0]);
    p.push_back(m.back().to_tensor().sizes()[1]);
    result = chain_product(m, matrix_chain_order(p), 0, n - 1);
  }
  return run_op("aten::reshape", {result, int_list_value(out_shape)});
}

void linalg_multi_dot(Stack& s) { s.push_back(multi_dot_impl(tensor_list_arg(pop(s)))); }

// chain_matmul(matrices): multi_dot of matrices only; one matrix is copied.
void chain_matmul(Stack& s) {
  const std::vector<Tensor> matrices = tensor_list_arg(pop(s));
  for (const Tensor& t : matrices) {
    if (t.dim() != 2) fail(fmt::format("Tensor dimension is {}, expected 2 instead.", t.dim()));
  }
  if (matrices.empty()) fail("chain_matmul(): Expected one or more matrices");
  if (matrices.size() == 1) {
    s.push_back(run_op("aten::clone", {IValue(matrices[0]), {}}));
    return;
  }
  s.push_back(multi_dot_impl(matrices));
}

}  // namespace

void register_matrix_product_ops(OperatorRegistry& r) {
  const IValue one(std::int64_t{1});
  r.add({"aten::tensordot", 4, {}, tensordot});
  r.add({"aten::kron", 2, {}, kron});
  r.add({"aten::addmv", 5, {one, one}, addmv});
  r.add({"aten::addr", 5, {one, one}, addr});
  r.add({"aten::addbmm", 5, {one, one}, addbmm});
  r.add({"aten::linalg_multi_dot", 1, {}, linalg_multi_dot});
  r.add({"aten::chain_matmul", 1, {}, chain_matmul});
}

}  // namespace symbolite::ops
