// The matrix exponential (matrix_exp, linalg.matrix_exp) by PyTorch 1.13's algorithm: Bader,
// Blanes and Casas's optimized Taylor polynomials of degree 1, 2, 4, 8, 12 or 18, chosen by
// the matrix's 1-norm against the dtype's thresholds; beyond the last, degree 18 on the matrix
// scaled by 2^-s and squared s times. The polynomials use PyTorch's coefficients and its order
// of products and sums; the products are plain loops (PyTorch's are BLAS calls), so results
// agree to rounding.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// One n x n matrix, row-major, and the operations the polynomials need.
template <typename T>
struct Mexp {
  std::int64_t n;
  using M = std::vector<T>;

  M identity() const {
    M out(static_cast<std::size_t>(n * n), T{0});
    for (std::int64_t i = 0; i < n; ++i) out[static_cast<std::size_t>(i * n + i)] = T{1};
    return out;
  }

  M mm(const M& a, const M& b) const {
    M out(static_cast<std::size_t>(n * n), T{0});
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t k = 0; k < n; ++k) {
        const T aik = a[static_cast<std::size_t>(i * n + k)];
        for (std::int64_t j = 0; j < n; ++j) {
          out[static_cast<std::size_t>(i * n + j)] += aik * b[static_cast<std::size_t>(k * n + j)];
        }
      }
    }
    return out;
  }

  // sum_j c[j] * ms[j], accumulated from zero in order (_compute_linear_combination).
  M combine(const std::vector<const M*>& ms, const std::vector<T>& c) const {
    M out(static_cast<std::size_t>(n * n), T{0});
    for (std::size_t j = 0; j < ms.size(); ++j) {
      for (std::size_t k = 0; k < out.size(); ++k) out[k] += (*ms[j])[k] * c[j];
    }
    return out;
  }

  static void add_into(M& a, const M& b) {
    for (std::size_t k = 0; k < a.size(); ++k) a[k] += b[k];
  }

  M t1(const M& a) const {
    M out = identity();
    add_into(out, a);
    return out;
  }

  M t2(const M& a) const {
    M out = t1(a);
    M a2 = mm(a, a);
    for (std::size_t k = 0; k < out.size(); ++k) out[k] += a2[k] / T{2};
    return out;
  }

  M t4(const M& a) const {
    const M i = identity(), a2 = mm(a, a);
    const M inner = combine({&i, &a, &a2}, {T{1} / T{2}, T{1} / T{6}, T{1} / T{24}});
    const M a3 = mm(a2, inner);
    return combine({&i, &a, &a2, &a3}, {T{1}, T{1}, T{0}, T{1}});
  }

  M t8(const M& a) const {
    constexpr T sqrt_177 = 0.1330413469565007072504e+2;
    constexpr T x3 = 2. / 3.;
    constexpr T x1 = x3 * ((1. + sqrt_177) / 88.);
    constexpr T x2 = x3 * ((1. + sqrt_177) / 352.);
    constexpr T x4 = (-271. + 29. * sqrt_177) / (315. * x3);
    constexpr T x5 = (-11. + 11. * sqrt_177) / (1260. * x3);
    constexpr T x6 = (-99. + 11. * sqrt_177) / (5040. * x3);
    constexpr T x7 = (89. - sqrt_177) / (5040. * x3);
    constexpr T y2 = (857. - 58. * sqrt_177) / 630.;
    const M i = identity(), a2 = mm(a, a);
    const M a4 = mm(a2, combine({&a, &a2}, {x1, x2}));
    const M a8 = mm(combine({&a2, &a4}, {x3, T{1}}), combine({&i, &a, &a2, &a4}, {x4, x5, x6, x7}));
    return combine({&i, &a, &a2, &a4, &a8}, {T{1}, T{1}, y2, T{0}, T{1}});
  }

  // The Bs = b @ As of degrees 12 and 18.
  template <std::size_t N>
  std::vector<M> products(const std::array<const M*, N>& as,
                          const std::array<std::array<T, N>, N>& b) const {
    std::vector<M> bs;
    const std::vector<const M*> in(as.begin(), as.end());
    for (std::size_t r = 0; r < N; ++r) bs.push_back(combine(in, {b[r].begin(), b[r].end()}));
    return bs;
  }

  M t12(const M& a) const {
    static constexpr std::array<std::array<T, 4>, 4> b = {{
        {9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740},
        {5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
         0.01108844528519167989},
        {0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
         0.00610700528898058230},
        {-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359},
    }};
    const M i = identity(), a2 = mm(a, a), a3 = mm(a, a2);
    std::vector<M> bs = products<4>({&i, &a, &a2, &a3}, b);
    add_into(bs[2], mm(bs[3], bs[3]));
    add_into(bs[1], bs[2]);
    M out = bs[0];
    add_into(out, mm(bs[1], bs[2]));
    return out;
  }

  M t18(const M& a) const {
    static constexpr std::array<std::array<T, 5>, 5> b = {{
        {0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04,
         0.},
        {0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
         -6.37898194594723280150e-04},
        {-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05},
        {-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05},
        {0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02,
         -1.40086798182036094347e-05},
    }};
    const M i = identity(), a2 = mm(a, a), a3 = mm(a, a2), a6 = mm(a3, a3);
    std::vector<M> bs = products<5>({&i, &a, &a2, &a3, &a6}, b);
    add_into(bs[3], mm(bs[0], bs[4]));
    add_into(bs[2], bs[3]);
    M out = bs[1];
    add_into(out, mm(bs[2], bs[3]));
    return out;
  }

  // exp(a) for a matrix of 1-norm `norm`.
  M exp(const M& a, T norm, const std::array<T, 6>& thetas) const {
    if (std::isnan(norm)) return M(a.size(), std::numeric_limits<T>::quiet_NaN());
    if (norm <= thetas[0]) return t1(a);
    if (norm <= thetas[1]) return t2(a);
    if (norm <= thetas[2]) return t4(a);
    if (norm <= thetas[3]) return t8(a);
    if (norm <= thetas[4]) return t12(a);
    const T s = std::max(T{0}, std::ceil(std::log2(norm / thetas[5])));
    const T scale = std::pow(T{2}, -s);
    M scaled = a;
    for (T& v : scaled) v *= scale;
    M out = t18(scaled);
    // An infinite norm (an infinite element, or float32 columns summing past FLT_MAX) makes s
    // infinite: PyTorch's conversion of it is undefined (x86 gives INT64_MIN, no squaring);
    // none here either, the result NaN from the scaled matrix's inf * 0 as PyTorch's is.
    const std::int64_t squarings = std::isfinite(s) ? static_cast<std::int64_t>(s) : 0;
    for (std::int64_t k = 0; k < squarings; ++k) out = mm(out, out);
    return out;
  }
};

template <typename T>
std::array<T, 6> thetas() {
  if constexpr (std::is_same_v<T, float>) {
    return {1.192092800768788e-07f, 5.978858893805233e-04f, 5.116619363445086e-02f,
            5.800524627688768e-01f, 1.461661507209034e+00f, 3.010066362817634e+00f};
  } else {
    return {2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
            4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00};
  }
}

void matrix_exp(Stack& s) {
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() < 2) {
    fail("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.");
  }
  const std::int64_t n = t.sizes().back(), rows = t.sizes()[t.sizes().size() - 2];
  if (n != rows) {
    fail(fmt::format(
        "linalg.matrix_exp: A must be batches of square matrices, but they are {} by {} matrices",
        rows, n));
  }
  if (!is_floating(t.dtype())) {
    fail(fmt::format("matrix_exp: Expected a floating point or complex tensor as input. Got {}",
                     tensor::scalar_type_name(t.dtype())));
  }
  if (n == 0) {
    s.push_back(run_op("aten::clone", {self, IValue()}));
    return;
  }
  if (n == 1) {
    s.push_back(run_op("aten::exp", {self}));
    return;
  }
  const Tensor x = t.contiguous();
  Tensor out = Tensor::uninitialized(t.sizes(), t.dtype());
  dispatch_floating(t.dtype(), "linalg_matrix_exp", [&](auto tag) {
    using T = decltype(tag);
    const Mexp<T> m{n};
    const std::array<T, 6> th = thetas<T>();
    const T* in = x.template data<T>();
    T* o = out.template mutable_data<T>();
    const std::int64_t size = n * n;
    for (std::int64_t b = 0; b < t.numel() / size; ++b) {
      const std::vector<T> a(in + b * size, in + (b + 1) * size);
      T norm = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        T col = 0;
        for (std::int64_t i = 0; i < n; ++i)
          col += std::abs(a[static_cast<std::size_t>(i * n + j)]);
        norm = (std::isnan(col) || col > norm) ? col : norm;
        if (std::isnan(norm)) break;
      }
      const std::vector<T> e = m.exp(a, norm, th);
      std::copy(e.begin(), e.end(), o + b * size);
    }
  });
  s.emplace_back(std::move(out));
}

}  // namespace

void register_matrix_exp_ops(OperatorRegistry& r) {
  r.add({"aten::matrix_exp", 1, {}, matrix_exp});
  r.add({"aten::linalg_matrix_exp", 1, {}, matrix_exp});
}

}  // namespace symbolite::ops
