// Activations beyond elementwise_ops' (relu, sigmoid, gelu, ...): elu, celu, selu,
// leaky_relu, threshold, mish, softplus, softshrink, hardshrink, log_sigmoid (with their
// in-place forms where PyTorch has them), prelu and glu. PyTorch 1.13's dtypes and messages.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

// out = f(x) for a float32 or float64 x, computed in double; other dtypes fail as PyTorch's
// dispatch does ("elu_cpu" not implemented for 'Long').
template <typename F>
Tensor floating_map(const Tensor& x, std::string_view kernel, F f) {
  return dispatch_floating(x.dtype(), kernel, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return unary_same<T>(x, [&f](T v) { return static_cast<T>(f(static_cast<double>(v))); });
  });
}

// A Scalar argument as PyTorch's kernel for x's dtype takes it (Scalar::to<scalar_t>): for a
// float32 x rounded to float, and an error past float's range (1e300), as a double.
double param(const Tensor& x, const IValue& v) {
  if (x.dtype() == DType::kFloat32) return checked_value<float>(v);
  return checked_value<double>(v);
}

// `fast(in, out, n)` (ops/cpu/vector_math.h: in float32, as PyTorch's vectorized kernel) on a
// contiguous float32 x; floating_map with `slow` on anything else.
template <typename Fast, typename Slow>
Tensor float32_fast(const Tensor& x, std::string_view kernel, Fast fast, Slow slow) {
  if (auto out = map_contiguous_f32(x, fast)) return std::move(*out);
  return floating_map(x, kernel, slow);
}

// PyTorch 1.13's elu: x > 0 ? scale * x : alpha * scale * (exp(x * input_scale) - 1); in
// float32 its coefficients are floats, alpha * scale their float product.
Tensor elu_impl(const Tensor& x, double alpha, double scale, double input_scale) {
  double neg = alpha * scale;
  const float neg32 = static_cast<float>(alpha) * static_cast<float>(scale);
  return float32_fast(
      x, "elu_cpu",
      [&](const float* in, float* out, std::int64_t n) {
        vec::elu_f32(in, out, n, neg32, static_cast<float>(scale), static_cast<float>(input_scale));
      },
      [=](double v) { return v <= 0 ? (std::exp(v * input_scale) - 1) * neg : v * scale; });
}

void elu(Stack& s) {
  IValue input_scale = pop(s), scale = pop(s), alpha = pop(s), self = pop(s);
  const Tensor& x = self.to_tensor();
  s.emplace_back(elu_impl(x, param(x, alpha), param(x, scale), param(x, input_scale)));
}
void elu_(Stack& s) {
  IValue input_scale = pop(s), scale = pop(s), alpha = pop(s), self = pop(s);
  const Tensor& x = self.to_tensor();
  push_in_place(s, self, elu_impl(x, param(x, alpha), param(x, scale), param(x, input_scale)));
}

Tensor celu_impl(const Tensor& x, const IValue& alpha) {
  const double a = checked_value<double>(alpha);  // celu's alpha.to<double>()
  if (a == 0) fail("ZeroDivisionError: alpha cannot be 0 for CELU");
  return elu_impl(x, param(x, alpha), 1.0, param(x, IValue(1.0 / a)));
}
void celu(Stack& s) {
  IValue alpha = pop(s), self = pop(s);
  s.emplace_back(celu_impl(self.to_tensor(), alpha));
}
void celu_(Stack& s) {
  IValue alpha = pop(s), self = pop(s);
  push_in_place(s, self, celu_impl(self.to_tensor(), alpha));
}

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
void selu(Stack& s) {
  IValue self = pop(s);
  s.emplace_back(elu_impl(self.to_tensor(), kSeluAlpha, kSeluScale, 1.0));
}
void selu_(Stack& s) {
  IValue self = pop(s);
  push_in_place(s, self, elu_impl(self.to_tensor(), kSeluAlpha, kSeluScale, 1.0));
}

Tensor leaky_relu_impl(const Tensor& x, const IValue& slope) {
  const double k = param(x, slope);
  return float32_fast(
      x, "leaky_relu_cpu",
      [&](const float* in, float* out, std::int64_t n) {
        vec::leaky_relu_f32(in, out, n, static_cast<float>(k));
      },
      [k](double v) { return v > 0 ? v : v * k; });
}
void leaky_relu(Stack& s) {
  IValue slope = pop(s), self = pop(s);
  s.emplace_back(leaky_relu_impl(self.to_tensor(), slope));
}
void leaky_relu_(Stack& s) {
  IValue slope = pop(s), self = pop(s);
  push_in_place(s, self, leaky_relu_impl(self.to_tensor(), slope));
}

// rrelu(self, lower, upper, training, generator): in eval, leaky_relu with the mean slope.
// Training draws a random slope per element, which symbolite does not reproduce.
Tensor rrelu_impl(Stack& s) {
  IValue generator = pop(s), training = pop(s), upper = pop(s), lower = pop(s);
  (void)generator;
  const double lo = checked_value<double>(lower), hi = checked_value<double>(upper);
  if (!(lo <= hi)) fail("Lower bound should be less than or equal to the upper bound");
  if (training.to_bool()) {
    throw Error(ErrorKind::kUnsupported,
                "aten::rrelu: training=True draws random slopes, which symbolite does not "
                "implement (models run it in eval mode)");
  }
  return leaky_relu_impl(s.back().to_tensor(), IValue((lo + hi) / 2));
}
void rrelu(Stack& s) {
  Tensor out = rrelu_impl(s);
  s.back() = IValue(std::move(out));
}
void rrelu_(Stack& s) {
  Tensor out = rrelu_impl(s);
  IValue self = pop(s);
  push_in_place(s, self, out);
}

// threshold: x <= threshold ? value : x, in x's dtype (integers too, not bool).
Tensor threshold_impl(const Tensor& x, const IValue& threshold, const IValue& value) {
  if (x.dtype() == DType::kBool) not_implemented("threshold_cpu", x.dtype());
  return dispatch_numeric(x.dtype(), "threshold_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    T th = checked_value<T>(threshold), val = checked_value<T>(value);
    return unary_same<T>(x, [th, val](T v) { return v <= th ? val : v; });
  });
}
void threshold(Stack& s) {
  IValue value = pop(s), th = pop(s), self = pop(s);
  s.emplace_back(threshold_impl(self.to_tensor(), th, value));
}
void threshold_(Stack& s) {
  IValue value = pop(s), th = pop(s), self = pop(s);
  push_in_place(s, self, threshold_impl(self.to_tensor(), th, value));
}

Tensor mish_impl(const Tensor& x) {
  return float32_fast(x, "mish_cpu", vec::mish_f32,
                      [](double v) { return v * std::tanh(std::log1p(std::exp(v))); });
}
void mish(Stack& s) { s.emplace_back(mish_impl(pop(s).to_tensor())); }
void mish_(Stack& s) {
  IValue self = pop(s);
  push_in_place(s, self, mish_impl(self.to_tensor()));
}

// softplus: x * beta > threshold ? x : log1p(exp(x * beta)) / beta.
void softplus(Stack& s) {
  IValue th = pop(s), beta = pop(s), self = pop(s);
  const Tensor& x = self.to_tensor();
  const double b = param(x, beta), t = param(x, th);
  s.emplace_back(float32_fast(
      x, "softplus_cpu",
      [&](const float* in, float* out, std::int64_t n) {
        vec::softplus_f32(in, out, n, static_cast<float>(b), static_cast<float>(t));
      },
      [b, t](double v) { return v * b > t ? v : std::log1p(std::exp(v * b)) / b; }));
}

// A Scalar as c10 prints it: "-1" for -1.0 (the message adds its own period).
std::string scalar_text(const IValue& v) {
  if (!v.is(IValue::Kind::kDouble)) return fmt::format("{}", v.to_int());
  return fmt::format("{}", v.to_double());
}

void softshrink(Stack& s) {
  IValue lambd = pop(s), self = pop(s);
  // PyTorch checks lambd.to<double>() >= 0 (NaN fails it), then converts it to x's type.
  if (!(checked_value<double>(lambd) >= 0)) {
    fail(fmt::format("lambda must be greater or equal to 0, but found to be {}.",
                     scalar_text(lambd)));
  }
  const double l = param(self.to_tensor(), lambd);
  s.emplace_back(floating_map(self.to_tensor(), "softshrink_cpu",
                              [l](double v) { return v > l ? v - l : (v < -l ? v + l : 0.0); }));
}
void hardshrink(Stack& s) {
  IValue lambd = pop(s), self = pop(s);
  const double l = param(self.to_tensor(), lambd);
  s.emplace_back(floating_map(self.to_tensor(), "hardshrink_cpu",
                              [l](double v) { return (v >= -l && v <= l) ? 0.0 : v; }));
}

// log_sigmoid: min(x, 0) - log1p(exp(-|x|)), stable at both ends.
void log_sigmoid(Stack& s) {
  IValue self = pop(s);
  s.emplace_back(float32_fast(
      self.to_tensor(), "log_sigmoid_cpu", vec::log_sigmoid_f32,
      [](double v) { return std::min(v, 0.0) - std::log1p(std::exp(-std::fabs(v))); }));
}

// prelu(self, weight): x > 0 ? x : weight[c] * x, c the channel (dimension 1); a weight of
// one element applies to every channel.
void prelu(Stack& s) {
  IValue weight_v = pop(s), self = pop(s);
  const Tensor& x = self.to_tensor();
  const Tensor& w = weight_v.to_tensor();
  if (x.dim() == 0) fail("Not allow zero-dim input tensor.");
  std::int64_t channels = x.dim() > 1 ? x.sizes()[1] : 1;
  std::int64_t params = w.numel();
  if (params != 1 && params != channels) {
    fail(
        fmt::format("Mismatch of parameter numbers and input channel size. Found parameter "
                    "numbers = {} and channel size = {}.",
                    params, channels));
  }
  if (w.dim() > 1) {
    fail(fmt::format("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = {}",
                     w.dim()));
  }
  Tensor xc = x.contiguous();
  Tensor wc = w.dtype() == x.dtype() ? w.contiguous() : to_dtype(w, x.dtype()).contiguous();
  std::int64_t inner = 1;
  for (std::size_t d = 2; d < xc.sizes().size(); ++d) inner *= xc.sizes()[d];
  s.emplace_back(dispatch_floating(x.dtype(), "prelu_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    Tensor out = Tensor::uninitialized(xc.sizes(), xc.dtype());
    const T* src = xc.template data<T>();
    const T* wp = wc.template data<T>();
    T* dst = out.template mutable_data<T>();
    // A run of `inner` elements a (image, channel), one slope each.
    const std::int64_t runs = inner == 0 ? 0 : xc.numel() / inner;
    for (std::int64_t r = 0; r < runs; ++r) {
      const T slope = params == 1 ? wp[0] : wp[r % channels];
      const T* in = src + r * inner;
      T* o = dst + r * inner;
      if constexpr (std::is_same_v<T, float>) {
        if (inner >= 16) {
          vec::leaky_relu_f32(in, o, inner, slope);
          continue;
        }
      }
      for (std::int64_t i = 0; i < inner; ++i) o[i] = in[i] > T(0) ? in[i] : slope * in[i];
    }
    return out;
  }));
}

// glu(self, dim): the first half of dim times the sigmoid of the second.
void glu(Stack& s) {
  std::int64_t dim_arg = pop(s).to_int();
  IValue self = pop(s);
  const Tensor& x = self.to_tensor();
  if (x.dim() == 0) fail("glu does not support scalars because halving size must be even");
  std::int64_t n = x.dim();
  if (dim_arg < -n || dim_arg >= n) {
    throw OpError("IndexError",
                  fmt::format("Dimension out of range (expected to be in range of [{}, {}], but "
                              "got {})",
                              -n, n - 1, dim_arg));
  }
  std::int64_t dim = dim_arg < 0 ? dim_arg + n : dim_arg;
  std::int64_t size = x.sizes()[static_cast<std::size_t>(dim)];
  if (size % 2 != 0) {
    fail(fmt::format("Halving dimension must be even, but dimension {} is size {}", dim, size));
  }
  if (!is_floating(x.dtype())) not_implemented("glu_cpu", x.dtype());
  std::int64_t half = size / 2;
  if (x.dtype() == DType::kFloat32 && x.is_contiguous()) {
    // PyTorch's vectorized a * (1 / (1 + exp(-b))): per block before `dim`, its first half's
    // run times the sigmoid (vec::sigmoid_f32, the same formula) of its second half's.
    std::int64_t inner = 1;
    for (std::int64_t d = dim + 1; d < n; ++d) inner *= x.sizes()[static_cast<std::size_t>(d)];
    const std::int64_t run = half * inner;
    const std::int64_t blocks = run == 0 ? 0 : x.numel() / (2 * run);
    Sizes sizes = x.sizes();
    sizes[static_cast<std::size_t>(dim)] = half;
    Tensor out = Tensor::uninitialized(sizes, DType::kFloat32);
    const float* src = x.data<float>();
    float* dst = out.mutable_data<float>();
    for (std::int64_t b = 0; b < blocks; ++b) {
      const float* first = src + 2 * b * run;
      float* to = dst + b * run;
      vec::sigmoid_f32(first + run, to, run);
      for (std::int64_t i = 0; i < run; ++i) to[i] = first[i] * to[i];
    }
    s.emplace_back(std::move(out));
    return;
  }
  Tensor a = run_op("aten::slice.Tensor",
                    {self, dim, IValue(std::int64_t{0}), half, IValue(std::int64_t{1})})
                 .to_tensor();
  Tensor b =
      run_op("aten::slice.Tensor", {self, dim, half, size, IValue(std::int64_t{1})}).to_tensor();
  s.emplace_back(dispatch_floating(x.dtype(), "glu_cpu", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(a, b, [](T u, T v) {
      return static_cast<T>(static_cast<double>(u) / (1.0 + std::exp(-static_cast<double>(v))));
    });
  }));
}

}  // namespace

void register_activation_ops(OperatorRegistry& r) {
  IValue one(std::int64_t{1});
  IValue one_f(1.0);
  r.add({"aten::elu", 4, {one, one, one}, elu});
  r.add({"aten::elu_", 4, {one, one, one}, elu_});
  r.add({"aten::celu", 2, {one_f}, celu});
  r.add({"aten::celu_", 2, {one_f}, celu_});
  r.add({"aten::selu", 1, {}, selu});
  r.add({"aten::selu_", 1, {}, selu_});
  r.add({"aten::leaky_relu", 2, {IValue(0.01)}, leaky_relu});
  r.add({"aten::leaky_relu_", 2, {IValue(0.01)}, leaky_relu_});
  IValue rrelu_lower(0.125), rrelu_upper(1.0 / 3.0), none;
  r.add({"aten::rrelu", 5, {rrelu_lower, rrelu_upper, IValue(false), none}, rrelu});
  r.add({"aten::rrelu_", 5, {rrelu_lower, rrelu_upper, IValue(false), none}, rrelu_});
  r.add({"aten::threshold", 3, {}, threshold});
  r.add({"aten::threshold_", 3, {}, threshold_});
  r.add({"aten::mish", 1, {}, mish});
  r.add({"aten::mish_", 1, {}, mish_});
  r.add({"aten::softplus", 3, {one, IValue(std::int64_t{20})}, softplus});
  r.add({"aten::softshrink", 2, {IValue(0.5)}, softshrink});
  r.add({"aten::hardshrink", 2, {IValue(0.5)}, hardshrink});
  r.add({"aten::log_sigmoid", 1, {}, log_sigmoid});
  r.add({"aten::prelu", 2, {}, prelu});
  r.add({"aten::glu", 2, {IValue(std::int64_t{-1})}, glu});
}

}  // namespace symbolite::ops
