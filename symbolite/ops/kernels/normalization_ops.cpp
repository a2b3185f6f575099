// Normalization: aten::batch_norm (running statistics, or in training mode without them the
// batch's own), aten::instance_norm, aten::group_norm and aten::layer_norm, float32 and
// float64. Checks and messages follow PyTorch 1.13
// (_batch_norm_impl_index, batch_norm_cpu, _check_layer_norm_inputs).
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/activation.h"
#include "symbolite/ops/common/batch_norm_affine.h"
#include "symbolite/ops/common/contiguous_sum.h"
#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/layer_norm_row.h"
#include "symbolite/ops/cpu/scale_shift.h"
#include "symbolite/ops/registry/epilogue_kernels.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

void check_features(const char* name, std::int64_t expected, const Tensor& t) {
  if (t.numel() != expected) {
    fail(fmt::format("{} should contain {} elements not {}", name, expected, t.numel()));
  }
}

// batch_norm_cpu's dtype checks, in its order: the input's dispatch; then its "mixed type"
// path (taken when the first defined parameter's dtype differs from the input's), which
// accepts only a BFloat16 input with float32 parameters; then each parameter's accessor,
// which wants the input's dtype.
void check_batch_norm_dtypes(const Tensor& input, const std::array<const Tensor*, 4>& params) {
  DType dtype = input.dtype();
  require_floating("aten::batch_norm", "batch_norm", dtype);
  const Tensor* first = nullptr;
  for (const Tensor* p : params) {
    if (first == nullptr && p != nullptr) first = p;
  }
  if (first != nullptr && first->dtype() != dtype) {
    for (const Tensor* p : params) {
      if (p != nullptr && p->dtype() != DType::kFloat32) {
        fail("mixed dtype (CPU): expect parameter to have scalar type of Float");
      }
    }
    fail("mixed dtype (CPU): expect input to have scalar type of BFloat16");
  }
  for (const Tensor* p : params) {
    if (p != nullptr && p->dtype() != dtype) {
      fail(fmt::format("expected scalar type {} but found {}", tensor::scalar_type_name(dtype),
                       tensor::scalar_type_name(p->dtype())));
    }
  }
}

// out (outer, C, inner) = x * scale[c] + shift[c] for the C = scale.size() channels,
// contiguous x; out may be x. A float32 `activation` is applied to each plane as it is
// written, while it is in cache.
template <typename T>
void scale_shift_planes(const Tensor& x, std::int64_t outer, std::int64_t inner,
                        const std::vector<double>& scale, const std::vector<double>& shift,
                        Tensor& out, std::optional<Activation> activation = std::nullopt) {
  auto features = static_cast<std::int64_t>(scale.size());
  const T* src = x.data<T>();
  T* dst = out.mutable_data<T>();
  // (image, channel) planes are independent: split across threads.
  parallel_for(outer * features,
               std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(1, inner)),
               [&](std::int64_t first, std::int64_t last) {
                 // The activation runs over runs of whole planes of at least
                 // kActivationRun elements (still in L1): per 7x7 plane, a vector
                 // function's remainder would cost as much as its body.
                 constexpr std::int64_t kActivationRun = 2048;
                 std::int64_t pending = first * inner;  // written, not yet activated
                 for (std::int64_t plane = first; plane < last; ++plane) {
                   const auto c = static_cast<std::size_t>(plane % features);
                   auto sc = static_cast<T>(scale[c]);
                   auto sh = static_cast<T>(shift[c]);
                   const std::int64_t base = plane * inner;
                   if constexpr (std::is_same_v<T, float>) {
                     scale_shift_f32(src + base, dst + base, inner, sc, sh);
                     const std::int64_t end = base + inner;
                     if (activation && (end - pending >= kActivationRun || plane + 1 == last)) {
                       apply_activation_f32(*activation, dst + pending, end - pending);
                       pending = end;
                     }
                   } else {
                     for (std::int64_t i = 0; i < inner; ++i) {
                       dst[base + i] = src[base + i] * sc + sh;
                     }
                   }
                 }
               });
}

// out (N, C, *) = x * scale[c] + shift[c]; out may be x.
template <typename T>
void scale_shift_channels(const Tensor& x, const std::vector<double>& scale,
                          const std::vector<double>& shift, Tensor& out,
                          std::optional<Activation> activation) {
  std::int64_t inner = 1;
  for (std::size_t d = 2; d < x.sizes().size(); ++d) inner *= x.sizes()[d];
  scale_shift_planes<T>(x, x.sizes()[0], inner, scale, shift, out, activation);
}

// The mean and biased variance of each of the C channels of contiguous x viewed as
// (outer, C, inner), accumulated in double (two passes).
template <typename T>
void channel_stats(const Tensor& x, std::int64_t outer, std::int64_t features, std::int64_t inner,
                   std::vector<double>& mean, std::vector<double>& var) {
  const T* src = x.data<T>();
  mean.assign(static_cast<std::size_t>(features), 0.0);
  var.assign(static_cast<std::size_t>(features), 0.0);
  double count = static_cast<double>(outer * inner);
  parallel_for(features, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t c = first; c < last; ++c) {
      double sum = 0;
      for (std::int64_t n = 0; n < outer; ++n) {
        sum += contiguous_sum(src + (n * features + c) * inner, inner);
      }
      double m = sum / count;
      double sq = 0;
      for (std::int64_t n = 0; n < outer; ++n) {
        sq += squares_about(src + (n * features + c) * inner, inner, m);
      }
      mean[static_cast<std::size_t>(c)] = m;
      var[static_cast<std::size_t>(c)] = sq / count;
    }
  });
}

// Normalizes contiguous x viewed as (outer, C, inner) per channel: with the given mean and
// variance, or (empty vectors) the batch's own (biased variance); then weight and bias.
Tensor normalize_planes(const Tensor& x, std::int64_t outer, std::int64_t inner,
                        const std::vector<double>& w, const std::vector<double>& b,
                        std::vector<double> m, std::vector<double> v, double eps, bool reuse) {
  auto features = static_cast<std::int64_t>(w.size());
  Tensor out = reuse ? x : Tensor::uninitialized(x.sizes(), x.dtype());
  dispatch_floating(x.dtype(), "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    if (m.empty()) channel_stats<T>(x, outer, features, inner, m, v);
    const ChannelAffine affine = batch_norm_affine(w, b, m, v, eps);
    scale_shift_planes<T>(x, outer, inner, affine.scale, affine.shift, out);
  });
  return out;
}

}  // namespace

// aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//                  Tensor? running_var, bool training, float momentum, float eps,
//                  bool cudnn_enabled)
// With `activation`, applies it too where it can in the same pass (float32 in eval) and says
// whether it did.
bool batch_norm_with_activation(Stack& s, std::optional<Activation> activation) {
  IValue* a = last(s, 9);
  const Tensor& input = a[0].to_tensor();
  const Tensor* weight = optional_tensor(a[1]);
  const Tensor* bias = optional_tensor(a[2]);
  const Tensor* mean = optional_tensor(a[3]);
  const Tensor* var = optional_tensor(a[4]);
  bool training = a[5].to_bool();
  double eps = a[7].to_double();

  // PyTorch reads sizes()[1] unchecked; for fewer than 2 dimensions it sees 0.
  std::int64_t features = input.dim() >= 2 ? input.sizes()[1] : 0;
  Tensor out;
  bool applied = false;
  if (input.numel() == 0) {
    out = Tensor::empty(input.sizes(), input.dtype());
  } else {
    if (mean != nullptr) {
      check_features("running_mean", features, *mean);
    } else if (!training) {
      fail("running_mean must be defined in evaluation mode");
    }
    if (var != nullptr) {
      check_features("running_var", features, *var);
    } else if (!training) {
      fail("running_var must be defined in evaluation mode");
    }
    if (weight != nullptr) check_features("weight", features, *weight);
    if (bias != nullptr) check_features("bias", features, *bias);
    check_batch_norm_dtypes(input, {weight, bias, mean, var});
    // Training mode normalises with the batch's statistics; with running statistics it
    // would also update them (a side effect on the module's buffers symbolite does not
    // make). Without them (BatchNorm with track_running_stats=False, in eval mode too) it
    // is a pure function.
    if (training && (mean != nullptr || var != nullptr)) {
      throw Error(ErrorKind::kUnsupported,
                  "aten::batch_norm in training mode is not supported (symbolite runs inference "
                  "only; call eval() before saving)");
    }
    std::vector<double> w = per_channel(weight, features, 1.0);
    std::vector<double> b = per_channel(bias, features, 0.0);
    if (training) {
      Tensor x = input.contiguous();
      std::int64_t inner = 1;
      for (std::size_t d = 2; d < x.sizes().size(); ++d) inner *= x.sizes()[d];
      out = normalize_planes(x, x.sizes()[0], inner, w, b, {}, {}, eps, false);
      drop(s, 9);
      s.emplace_back(std::move(out));
      return false;
    }
    std::vector<double> m = per_channel(mean, features, 0.0);
    std::vector<double> v = per_channel(var, features, 1.0);
    const ChannelAffine affine = batch_norm_affine(w, b, m, v, eps);
    // An input nothing else refers to (a convolution's output moved onto the stack) is
    // overwritten: no second buffer, and the values stay in cache for the next op. A tensor
    // a register or a residual branch still holds (pre-norm blocks: maxvit's MBConv) is not.
    bool reuse = input.is_contiguous() && a[0].holds_unshared_tensor();
    Tensor x = input.contiguous();
    out = reuse ? x : Tensor::uninitialized(x.sizes(), x.dtype());
    applied = activation && x.dtype() == DType::kFloat32;
    dispatch_floating(x.dtype(), "batch_norm", [&](auto tag) {
      scale_shift_channels<decltype(tag)>(x, affine.scale, affine.shift, out,
                                          applied ? activation : std::nullopt);
    });
  }
  drop(s, 9);
  s.emplace_back(std::move(out));
  return applied;
}

namespace {

void batch_norm(Stack& s) { batch_norm_with_activation(s, std::nullopt); }

// aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//   Tensor? running_var, bool use_input_stats, float momentum, float eps, bool cudnn_enabled)
// PyTorch's: batch_norm on the input viewed as (1, N * C, *), the per-channel parameters
// repeated N times. use_input_stats normalises each (sample, channel) plane by its own
// statistics; otherwise by the running ones.
void instance_norm(Stack& s) {
  IValue* a = last(s, 9);
  const Tensor& input = a[0].to_tensor();
  const Tensor* weight = optional_tensor(a[1]);
  const Tensor* bias = optional_tensor(a[2]);
  const Tensor* mean = optional_tensor(a[3]);
  const Tensor* var = optional_tensor(a[4]);
  bool use_input_stats = a[5].to_bool();
  double eps = a[7].to_double();
  if (!use_input_stats && (mean == nullptr || var == nullptr)) {
    fail("Expected running_mean and running_var to be defined when use_input_stats is false");
  }
  if (input.dim() < 2) {
    fail(fmt::format("Dimension out of range (expected to be in range of [-{0}, {1}], but got 1)",
                     std::max<std::int64_t>(input.dim(), 1),
                     std::max<std::int64_t>(input.dim(), 1) - 1));
  }
  std::int64_t n = input.sizes()[0], c = input.sizes()[1];
  if (use_input_stats && (mean != nullptr || var != nullptr)) {
    throw Error(ErrorKind::kUnsupported,
                "aten::instance_norm updating running statistics (training mode) is not "
                "supported (symbolite runs inference only; call eval() before saving)");
  }
  Tensor out;
  if (input.numel() == 0) {
    out = Tensor::empty(input.sizes(), input.dtype());
  } else {
    // batch_norm's checks, on the parameters repeated N times.
    auto check_repeated = [n, c](const char* name, const Tensor* t) {
      if (t != nullptr && t->numel() * n != n * c) {
        fail(fmt::format("{} should contain {} elements not {}", name, n * c, t->numel() * n));
      }
    };
    check_repeated("running_mean", mean);
    check_repeated("running_var", var);
    check_repeated("weight", weight);
    check_repeated("bias", bias);
    check_batch_norm_dtypes(input, {weight, bias, mean, var});
    auto repeat = [n](std::vector<double> v) {
      std::vector<double> out;
      for (std::int64_t i = 0; i < n; ++i) out.insert(out.end(), v.begin(), v.end());
      return out;
    };
    std::vector<double> w = repeat(per_channel(weight, c, 1.0));
    std::vector<double> b = repeat(per_channel(bias, c, 0.0));
    std::vector<double> m, v;
    if (!use_input_stats) {
      m = repeat(per_channel(mean, c, 0.0));
      v = repeat(per_channel(var, c, 1.0));
    }
    Tensor x = input.contiguous();
    out = normalize_planes(x, 1, x.numel() / (n * c), w, b, m, v, eps, false);
  }
  drop(s, 9);
  s.emplace_back(std::move(out));
}

// aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None,
//                  float eps=1e-05, bool cudnn_enabled=True): each sample's channels split in
// num_groups groups, each normalised by its own mean and biased variance, then the
// per-channel weight and bias.
void group_norm(Stack& s) {
  IValue* a = last(s, 6);
  const Tensor& input = a[0].to_tensor();
  std::int64_t groups = a[1].to_int();
  const Tensor* weight = optional_tensor(a[2]);
  const Tensor* bias = optional_tensor(a[3]);
  double eps = a[4].to_double();
  std::int64_t n = input.dim() >= 1 ? input.sizes()[0] : 1;
  std::int64_t c = input.dim() >= 2 ? input.sizes()[1] : 1;
  if (groups <= 0 || c % groups != 0) {
    fail(
        fmt::format("Expected number of channels in input to be divisible by num_groups, but got "
                    "input of shape {} and num_groups={}",
                    format_ints(input.sizes()), groups));
  }
  if (weight != nullptr && (weight->dim() != 1 || weight->numel() != c)) {
    fail(
        fmt::format("Expected weight to be a vector of size equal to the number of channels in "
                    "input, but got weight of shape {} and input of shape {}",
                    format_ints(weight->sizes()), format_ints(input.sizes())));
  }
  if (bias != nullptr && (bias->dim() != 1 || bias->numel() != c)) {
    fail(
        fmt::format("Expected bias to be a vector of size equal to the number of channels in "
                    "input, but got bias of shape {} and input of shape {}",
                    format_ints(bias->sizes()), format_ints(input.sizes())));
  }
  require_floating("aten::group_norm", "GroupNormKernelImpl", input.dtype());
  for (const Tensor* param : {weight, bias}) {
    if (param != nullptr && param->dtype() != input.dtype()) {
      unsupported_dtype("aten::group_norm", param->dtype());
    }
  }
  Tensor x = input.contiguous();
  Tensor out = Tensor::uninitialized(x.sizes(), x.dtype());
  if (x.numel() > 0) {
    std::int64_t inner = x.numel() / (n * c);
    std::int64_t per_group = c / groups;
    std::vector<double> w = per_channel(weight, c, 1.0);
    std::vector<double> b = per_channel(bias, c, 0.0);
    dispatch_floating(x.dtype(), "GroupNormKernelImpl", [&](auto tag) {
      using T = decltype(tag);
      // The statistics of (n, group) as one channel of x viewed as (1, N * G, C / G * inner).
      std::vector<double> mean, var;
      channel_stats<T>(x, 1, n * groups, per_group * inner, mean, var);
      std::vector<double> scale(static_cast<std::size_t>(n * c)), shift(scale.size());
      for (std::int64_t i = 0; i < n * c; ++i) {
        auto g = static_cast<std::size_t>((i / c) * groups + (i % c) / per_group);
        auto ch = static_cast<std::size_t>(i % c);
        double rstd = 1.0 / std::sqrt(var[g] + eps);
        scale[static_cast<std::size_t>(i)] = w[ch] * rstd;
        shift[static_cast<std::size_t>(i)] = b[ch] - mean[g] * rstd * w[ch];
      }
      scale_shift_planes<T>(x, 1, inner, scale, shift, out);
    });
  }
  drop(s, 6);
  s.emplace_back(std::move(out));
}

// Normalizes each of the x.numel() / m rows of m elements (statistics in double), then
// applies the optional elementwise weight and bias; writes into `out`. Rows are independent:
// split across threads.
template <typename T>
void layer_norm_rows(const Tensor& x, const Tensor* weight, const Tensor* bias, double eps,
                     std::int64_t m, Tensor& out) {
  if (x.numel() == 0 || m == 0) return;
  std::int64_t rows = x.numel() / m;
  Tensor wc = weight == nullptr ? Tensor() : weight->contiguous();
  Tensor bc = bias == nullptr ? Tensor() : bias->contiguous();
  const T* w = weight == nullptr ? nullptr : wc.data<T>();
  const T* b = bias == nullptr ? nullptr : bc.data<T>();
  const T* src = x.data<T>();
  T* dst = out.mutable_data<T>();
  parallel_for(rows, std::max<std::int64_t>(1, 8192 / m),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t r = first; r < last; ++r) {
                   if constexpr (std::is_same_v<T, float>) {
                     layer_norm_row_f32(src + r * m, dst + r * m, m, w, b, eps);
                   } else {
                     layer_norm_row_f64(src + r * m, dst + r * m, m, w, b, eps);
                   }
                 }
               });
}

// aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None,
//                  Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True)
void layer_norm(Stack& s) {
  IValue* a = last(s, 6);
  const Tensor& input = a[0].to_tensor();
  Ints shape = int_list_arg(a[1]);
  const Tensor* weight = optional_tensor(a[2]);
  const Tensor* bias = optional_tensor(a[3]);
  double eps = a[4].to_double();

  if (shape.empty()) {
    fail(
        fmt::format("Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                    "least one element, but got normalized_shape = {}",
                    format_ints(shape)));
  }
  if (weight != nullptr && weight->sizes() != shape) {
    fail(
        fmt::format("Expected weight to be of same shape as normalized_shape, but got weight of "
                    "shape {} and normalized_shape = {}",
                    format_ints(weight->sizes()), format_ints(shape)));
  }
  if (bias != nullptr && bias->sizes() != shape) {
    fail(
        fmt::format("Expected bias to be of same shape as normalized_shape, but got bias of "
                    "shape {} and normalized_shape = {}",
                    format_ints(bias->sizes()), format_ints(shape)));
  }
  const Ints& is = input.sizes();
  if (is.size() < shape.size() ||
      !std::equal(shape.begin(), shape.end(),
                  is.end() - static_cast<std::ptrdiff_t>(shape.size()))) {
    std::string expected = "[*";
    for (auto d : shape) expected += fmt::format(", {}", d);
    fail(
        fmt::format("Given normalized_shape={}, expected input with shape {}], but got input of "
                    "size{}",
                    format_ints(shape), expected, format_ints(is)));
  }
  // float64 too: a module made .double() keeps its activations in float64.
  require_floating("aten::layer_norm", "LayerNormKernelImpl", input.dtype());
  for (const Tensor* param : {weight, bias}) {
    if (param != nullptr && param->dtype() != input.dtype()) {
      unsupported_dtype("aten::layer_norm", param->dtype());
    }
  }
  std::int64_t m = 1;
  for (auto d : shape) m *= d;
  Tensor x = input.contiguous();
  Tensor out = Tensor::uninitialized(x.sizes(), x.dtype());  // every row written
  if (x.dtype() == DType::kFloat64) {
    layer_norm_rows<double>(x, weight, bias, eps, m, out);
  } else {
    layer_norm_rows<float>(x, weight, bias, eps, m, out);
  }
  drop(s, 6);
  s.emplace_back(std::move(out));
}

}  // namespace

void register_normalization_ops(OperatorRegistry& r) {
  r.add({"aten::batch_norm", 9, {}, batch_norm});
  r.add({"aten::instance_norm", 9, {}, instance_norm});
  r.add({"aten::group_norm", 6, {IValue(), IValue(), IValue(1e-05), IValue(true)}, group_norm});
  r.add({"aten::layer_norm", 6, {IValue(), IValue(), IValue(1e-05), IValue(true)}, layer_norm});
}

}  // namespace symbolite::ops::nn
