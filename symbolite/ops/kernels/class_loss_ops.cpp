// Losses over class indices (nn.NLLLoss, CrossEntropyLoss, MultiMarginLoss,
// MultiLabelMarginLoss): aten::nll_loss, nll_loss2d, nll_loss_nd, cross_entropy_loss,
// multi_margin_loss, multilabel_margin_loss. Each loops over the classes as PyTorch 1.13's CPU
// kernel does, with its checks in its order (so the same bad input gives the same message).
// `reduction` is PyTorch's enum: 0 none, 1 mean, anything else sum.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/checked_scalar.h"
#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

constexpr std::int64_t kNone = 0, kMean = 1;

// A data_ptr<T>() of the wrong dtype: "expected scalar type Long but found Float".
void require_dtype(const Tensor& t, DType expected) {
  if (t.dtype() != expected) {
    fail(fmt::format("expected scalar type {} but found {}", tensor::scalar_type_name(expected),
                     tensor::scalar_type_name(t.dtype())));
  }
}

// Class indices as int64; nll_loss also reads uint8 targets.
std::vector<std::int64_t> class_indices(const Tensor& target, bool allow_byte) {
  if (!(allow_byte && target.dtype() == DType::kUInt8)) require_dtype(target, DType::kInt64);
  const Tensor t = to_dtype(target, DType::kInt64);
  const std::int64_t* p = t.data<std::int64_t>();
  return {p, p + t.numel()};
}

// The NLL loss of an input laid out as [n, c, s] (s = 1 for nll_loss, h * w for nll_loss2d):
// -input[b, target, e] * weight[target], or per element (shaped `elementwise_sizes`) when
// `elementwise` is set, else summed (divided by the summed weights for the mean).
struct NllLayout {
  std::int64_t n, c, s;
};

template <typename T>
Tensor nll_frame(const Tensor& input, const std::vector<std::int64_t>& target, const Tensor* weight,
                 NllLayout l, std::int64_t reduction, std::int64_t ignore_index, bool elementwise,
                 std::vector<std::int64_t> elementwise_sizes) {
  const Tensor x_c = input.contiguous();
  const T* x = x_c.data<T>();
  const Tensor w_c = weight != nullptr ? weight->contiguous() : Tensor();
  const T* w = weight != nullptr ? w_c.data<T>() : nullptr;
  auto checked = [&](std::int64_t t) {
    if (t < 0 || t >= l.c)
      throw OpError("IndexError", fmt::format("Target {} is out of bounds.", t));
    return t;
  };
  if (elementwise) {
    Tensor out = Tensor::uninitialized(std::move(elementwise_sizes), input.dtype());
    T* o = out.mutable_data<T>();
    for (std::int64_t b = 0; b < l.n; ++b) {
      for (std::int64_t e = 0; e < l.s; ++e) {
        const std::int64_t t = target[static_cast<std::size_t>(b * l.s + e)];
        if (t == ignore_index) {
          o[b * l.s + e] = T(0);
          continue;
        }
        const T wt = w != nullptr ? w[checked(t)] : T(1);
        o[b * l.s + e] = -x[(b * l.c + checked(t)) * l.s + e] * wt;
      }
    }
    return out;
  }
  // Summed in double: PyTorch's cascade sum is as exact for the sizes losses see.
  double loss = 0, total = 0;
  for (std::int64_t b = 0; b < l.n; ++b) {
    for (std::int64_t e = 0; e < l.s; ++e) {
      const std::int64_t t =
          target.empty() ? ignore_index : target[static_cast<std::size_t>(b * l.s + e)];
      if (t == ignore_index) continue;
      const double wt = w != nullptr ? static_cast<double>(w[checked(t)]) : 1.0;
      loss -= static_cast<double>(x[(b * l.c + checked(t)) * l.s + e]) * wt;
      total += wt;
    }
  }
  Tensor out = Tensor::uninitialized({}, input.dtype());
  out.mutable_data<T>()[0] = static_cast<T>(reduction == kMean ? loss / total : loss);
  return out;
}

void check_weight_dtype(const Tensor* weight, DType dtype) {
  if (weight != nullptr) require_dtype(*weight, dtype);
}

// nll_loss: a [C] input with a 0-d target, or [N, C] with [N].
Tensor nll_loss_impl(const Tensor& self, const Tensor& target, const Tensor* weight,
                     std::int64_t reduction, std::int64_t ignore_index) {
  if (self.dim() < 1 || self.dim() > 2) fail("input tensor should be 1D or 2D");
  if (target.dim() > 1) fail("0D or 1D target tensor expected, multi-target not supported");
  const bool no_batch_dim = self.dim() == 1 && target.dim() == 0;
  if (!no_batch_dim) {
    if (target.dim() == 0)
      throw OpError("IndexError", "Dimension specified as 0 but tensor has no dimensions");
    if (self.sizes()[0] != target.sizes()[0]) {
      fail(fmt::format("size mismatch (got input: {}, target: {})", nn::format_ints(self.sizes()),
                       nn::format_ints(target.sizes())));
    }
  }
  const std::int64_t n_classes = self.sizes().back();
  if (weight != nullptr && (weight->dim() != 1 || weight->numel() != n_classes)) {
    fail(fmt::format(
        "weight tensor should be defined either for all {} classes or no classes but got weight "
        "tensor of shape: {}",
        n_classes, nn::format_ints(weight->sizes())));
  }
  return dispatch_floating(self.dtype(), "nll_loss_out_frame", [&](auto tag) {
    using T = decltype(tag);
    check_weight_dtype(weight, self.dtype());
    const bool elementwise = reduction == kNone && self.dim() == 2;
    // An empty reduction reads no target (nor checks its dtype): NaN for the mean, else 0.
    const auto indices = elementwise || target.numel() > 0 ? class_indices(target, true)
                                                           : std::vector<std::int64_t>{};
    // A 1-d input reads target[0] whatever the target's length (PyTorch 1.13 does not check it).
    const NllLayout layout{self.dim() == 1 ? 1 : self.sizes()[0], n_classes, 1};
    return nll_frame<T>(self, indices, weight, layout, reduction, ignore_index, elementwise,
                        {layout.n});
  });
}

// nll_loss2d: an [N, C, H, W] input with an [N, H, W] target.
Tensor nll_loss2d_impl(const Tensor& self, const Tensor& target, const Tensor* weight,
                       std::int64_t reduction, std::int64_t ignore_index) {
  if (target.dim() != 3) {
    fail(fmt::format(
        "only batches of spatial targets supported (3D tensors) but got targets of dimension: {}",
        target.dim()));
  }
  if (self.dim() != 4) {
    fail(fmt::format(
        "only batches of spatial inputs supported (4D tensors), but got input of dimension: {}",
        self.dim()));
  }
  const auto& in = self.sizes();
  const auto& tg = target.sizes();
  if (weight != nullptr && weight->numel() != in[1])
    fail("weight tensor should be defined either for all or no classes");
  if (in[0] != tg[0] || in[2] != tg[1] || in[3] != tg[2]) {
    // PyTorch's message has no closing parenthesis.
    fail(fmt::format("size mismatch (got input: {} , target: {}", nn::format_ints(in),
                     nn::format_ints(tg)));
  }
  return dispatch_floating(self.dtype(), "nll_loss2d_forward_out_frame", [&](auto tag) {
    using T = decltype(tag);
    check_weight_dtype(weight, self.dtype());
    const bool elementwise = reduction == kNone;
    const auto indices = elementwise || target.numel() > 0 ? class_indices(target, false)
                                                           : std::vector<std::int64_t>{};
    const NllLayout layout{in[0], in[1], in[2] * in[3]};
    return nll_frame<T>(self, indices, weight, layout, reduction, ignore_index, elementwise,
                        {in[0], in[2], in[3]});
  });
}

// nll_loss_nd: nll_loss for 1-d and 2-d inputs, nll_loss2d for 4-d, and other ranks as 4-d
// [N, C, 1, d1 * d2 * ...] (the unreduced loss shaped back to [N, d1, d2, ...]).
Tensor nll_loss_nd_impl(const Tensor& self, const Tensor& target, const Tensor* weight,
                        std::int64_t reduction, std::int64_t ignore_index) {
  if (self.dim() < 1)
    throw OpError("ValueError", fmt::format("Expected 1 or more dimensions (got {})", self.dim()));
  if (self.dim() != 1) {
    // A 0-d target reads as batch size 0 (PyTorch reads past its empty sizes).
    const std::int64_t target_batch = target.dim() == 0 ? 0 : target.sizes()[0];
    if (self.sizes()[0] != target_batch) {
      throw OpError("ValueError",
                    fmt::format("Expected input batch_size ({}) to match target batch_size ({}).",
                                self.sizes()[0], target_batch));
    }
  }
  if (self.dim() <= 2) return nll_loss_impl(self, target, weight, reduction, ignore_index);
  if (self.dim() == 4) return nll_loss2d_impl(self, target, weight, reduction, ignore_index);
  const auto& in = self.sizes();
  std::vector<std::int64_t> out_size(in.begin() + 2, in.end());
  out_size.insert(out_size.begin(), in[0]);
  if (std::vector<std::int64_t>(target.sizes().begin() + 1, target.sizes().end()) !=
      std::vector<std::int64_t>(in.begin() + 2, in.end())) {
    fail(fmt::format("Expected target size {}, got {}", nn::format_ints(out_size),
                     nn::format_ints(target.sizes())));
  }
  const std::int64_t n = in[0], c = in[1];
  const Tensor x = self.contiguous();
  const Tensor t = target.contiguous();
  const Tensor x4 =
      nn::view_as(x, x.numel() > 0 ? std::vector<std::int64_t>{n, c, 1, x.numel() / (n * c)}
                                   : std::vector<std::int64_t>{n, c, 0, 0});
  const Tensor t3 = nn::view_as(t, t.numel() > 0 ? std::vector<std::int64_t>{n, 1, t.numel() / n}
                                                 : std::vector<std::int64_t>{n, 0, 0});
  Tensor out = nll_loss2d_impl(x4, t3, weight, reduction, ignore_index);
  return reduction == kNone ? nn::view_as(out, out_size) : out;
}

// nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, int ignore_index=-100),
// and nll_loss2d, nll_loss_nd with the same arguments.
template <Tensor (*Impl)(const Tensor&, const Tensor&, const Tensor*, std::int64_t, std::int64_t)>
void nll_op(Stack& s) {
  const std::int64_t ignore_index = pop(s).to_int();
  const std::int64_t reduction = pop(s).to_int();
  IValue weight = pop(s), target = pop(s), self = pop(s);
  s.emplace_back(Impl(self.to_tensor(), target.to_tensor(), nn::optional_tensor(weight), reduction,
                      ignore_index));
}

[[noreturn]] void invalid_reduction(std::int64_t reduction) {
  fail(fmt::format("Invalid reduction type encountered in cross_entropy: {}", reduction));
}

// `weight` viewed to broadcast along dimension `class_dim` of an `ndim`-d input.
Tensor class_weight_view(const Tensor& weight, std::int64_t ndim, std::int64_t class_dim) {
  std::vector<std::int64_t> shape(static_cast<std::size_t>(ndim), 1);
  shape[static_cast<std::size_t>(class_dim)] = weight.sizes()[0];
  return nn::view_as(weight.contiguous(), std::move(shape));
}

IValue mul(const IValue& a, const IValue& b) { return run_op("aten::mul.Tensor", {a, b}); }

// cross_entropy with class probabilities as the target (target shaped like the input):
// -sum(log_softmax(x) * target * weight) over classes, the mean dividing by the batch count.
IValue cross_entropy_probabilities(const Tensor& self, const IValue& target, const Tensor* weight,
                                   std::int64_t reduction, double label_smoothing) {
  const std::int64_t class_dim =
      wrap_dim(self.dim() == 1 ? 0 : 1, self.dim());  // IndexError for 0-d
  const std::int64_t n_classes = self.sizes()[static_cast<std::size_t>(class_dim)];
  if (weight != nullptr && (weight->dim() != 1 || weight->numel() != n_classes)) {
    fail(
        fmt::format("cross_entropy: weight tensor should be defined either for all {} classes or "
                    "no classes but "
                    "got weight tensor of shape: {}",
                    n_classes, nn::format_ints(weight->sizes())));
  }
  IValue input = run_op("aten::log_softmax.int", {self, class_dim, IValue()});
  IValue t = target;
  if (label_smoothing > 0.0) {
    if (label_smoothing > 1.0)
      fail(fmt::format("label_smoothing must be between 0.0 and 1.0. Got: {:g}", label_smoothing));
    t = run_op("aten::add.Scalar", {run_op("aten::mul.Scalar", {target, 1 - label_smoothing}),
                                    label_smoothing / static_cast<double>(n_classes)});
  }
  IValue product = mul(input, t);
  if (weight != nullptr) product = mul(product, class_weight_view(*weight, self.dim(), class_dim));
  if (reduction == kNone) {
    return run_op("aten::neg",
                  {run_op("aten::sum.dim_IntList", {product, nn::ints({class_dim}), false})});
  }
  IValue total = run_op("aten::neg", {run_op("aten::sum", {product})});
  if (reduction == kMean) {
    // An empty input gives 0 / 0: NaN, as PyTorch fills it.
    const std::int64_t count = self.numel() == 0 ? 0 : self.numel() / n_classes;
    return run_op("aten::div.Scalar", {total, count});
  }
  if (reduction != 2) invalid_reduction(reduction);
  return total;
}

// cross_entropy with class indices and label smoothing: (1 - ls) nll + ls / C * smooth, where
// smooth is -sum(log_softmax(x) * weight) over classes (0 where the target is ignored).
IValue cross_entropy_label_smoothing(const Tensor& self, const Tensor& target, const Tensor* weight,
                                     std::int64_t reduction, std::int64_t ignore_index,
                                     double label_smoothing) {
  const std::int64_t class_dim = self.dim() == 1 ? 0 : 1;
  IValue input = run_op("aten::log_softmax.int", {self, class_dim, IValue()});
  IValue nll = IValue(nll_loss_nd_impl(input.to_tensor(), target, weight, reduction, ignore_index));
  const std::int64_t n_classes = input.to_tensor().sizes()[static_cast<std::size_t>(class_dim)];
  IValue weighted =
      weight != nullptr ? mul(input, class_weight_view(*weight, self.dim(), class_dim)) : input;
  IValue smooth = run_op(
      "aten::neg", {run_op("aten::sum.dim_IntList", {weighted, nn::ints({class_dim}), false})});
  smooth = run_op("aten::masked_fill.Scalar",
                  {smooth, run_op("aten::eq.Scalar", {target, ignore_index}), 0.0});
  IValue ret;
  if (reduction == kNone) {
    ret = smooth;
  } else if (reduction == kMean) {
    // The mean divides by the kept targets' summed weights (their count without weights), as nll_loss.
    const Tensor indices = to_dtype(target, DType::kInt64);  // nll_loss_nd accepted it
    const Tensor w = weight != nullptr ? to_dtype(*weight, DType::kFloat64) : Tensor();
    double denominator = 0;
    for (std::int64_t i = 0; i < indices.numel(); ++i) {
      const std::int64_t t = indices.data<std::int64_t>()[i];
      if (t != ignore_index) denominator += weight != nullptr ? w.data<double>()[t] : 1.0;
    }
    ret = run_op("aten::div.Scalar", {run_op("aten::sum", {smooth}), denominator});
  } else if (reduction == 2) {
    ret = run_op("aten::sum", {smooth});
  } else {
    invalid_reduction(reduction);
  }
  return run_op(
      "aten::add.Tensor",
      {run_op("aten::mul.Scalar", {nll, 1 - label_smoothing}),
       run_op("aten::mul.Scalar", {ret, label_smoothing / static_cast<double>(n_classes)})});
}

// cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,
// int ignore_index=-100, float label_smoothing=0.0): probabilities when the target has the
// input's shape, else class indices through log_softmax and nll_loss_nd.
void cross_entropy_loss(Stack& s) {
  const double label_smoothing = pop(s).to_double();
  const std::int64_t ignore_index = pop(s).to_int();
  const std::int64_t reduction = pop(s).to_int();
  IValue weight_arg = pop(s), target_arg = pop(s), self_arg = pop(s);
  const Tensor& self = self_arg.to_tensor();
  const Tensor& target = target_arg.to_tensor();
  const Tensor* weight = nn::optional_tensor(weight_arg);
  if (self.sizes() == target.sizes()) {
    if (!is_floating(target.dtype())) {
      fail(fmt::format("Expected floating point type for target with class probabilities, got {}",
                       tensor::scalar_type_name(target.dtype())));
    }
    if (ignore_index >= 0) fail("ignore_index is not supported for floating point target");
    s.push_back(cross_entropy_probabilities(self, target_arg, weight, reduction, label_smoothing));
  } else if (label_smoothing > 0.0) {
    if (label_smoothing > 1.0)
      fail(fmt::format("label_smoothing must be between 0.0 and 1.0. Got: {:g}", label_smoothing));
    s.push_back(cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index,
                                              label_smoothing));
  } else {
    IValue input = run_op("aten::log_softmax.int", {self_arg, self.dim() == 1 ? 0 : 1, IValue()});
    s.emplace_back(nll_loss_nd_impl(input.to_tensor(), target, weight, reduction, ignore_index));
  }
}

// The (frames, classes) of a multi-margin loss input: a vector, a matrix or a 0-d input.
struct MarginShape {
  std::int64_t nframe, dim;
};

MarginShape margin_loss_shape(const Tensor& input) {
  const std::int64_t nd = input.dim();
  const bool valid =
      (nd == 2 && input.sizes()[1] != 0) || (nd == 1 && input.sizes()[0] != 0) || nd == 0;
  if (!valid) {
    fail(fmt::format(
        "Expected non-empty vector or matrix with optional 0-dim batch size, but got: {}",
        nn::format_ints(input.sizes())));
  }
  if (nd <= 1) return {1, nd == 0 ? 1 : input.sizes()[0]};
  return {input.sizes()[0], input.sizes()[1]};
}

// multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, Tensor? weight=None,
// int reduction=Mean): per frame, sum over d != y of max(0, margin - x[y] + x[d])^p * w[y],
// divided by the class count.
void multi_margin_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  IValue weight_arg = pop(s), margin_arg = pop(s), p_arg = pop(s), target_arg = pop(s),
         self_arg = pop(s);
  const Tensor& self = self_arg.to_tensor();
  const Tensor& target = target_arg.to_tensor();
  const Tensor* weight = nn::optional_tensor(weight_arg);
  const auto p = checked_value<std::int64_t>(p_arg);  // Scalar.toInt(): 2.5 is 2
  if (p != 1 && p != 2) fail("only p == 1 and p == 2 supported");
  const MarginShape shape = margin_loss_shape(self);
  if (target.dim() > 1 || target.numel() != shape.nframe) {
    fail(fmt::format("inconsistent target size, got: {}", nn::format_ints(target.sizes())));
  }
  const bool elementwise = reduction == kNone && target.dim() > 0;
  std::vector<std::int64_t> out_sizes =
      elementwise ? std::vector<std::int64_t>{shape.nframe} : std::vector<std::int64_t>{};
  if (self.numel() == 0) {
    // PyTorch leaves an empty batch's reduced loss uninitialized; symbolite gives 0.
    s.emplace_back(Tensor::empty(std::move(out_sizes), self.dtype()));
    return;
  }
  s.emplace_back(dispatch_floating(self.dtype(), "multi_margin_loss_cpu_kernel", [&](auto tag) {
    using T = decltype(tag);
    const std::vector<std::int64_t> y = class_indices(target, false);
    check_weight_dtype(weight, self.dtype());
    const Tensor w_c = weight != nullptr ? weight->contiguous() : Tensor();
    if (weight != nullptr && w_c.numel() < shape.dim) {
      // PyTorch reads past the end of a short weight.
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("multi_margin_loss: symbolite needs a weight for each of the "
                              "{} classes, got {}",
                              shape.dim, w_c.numel()));
    }
    const T* w = weight != nullptr ? w_c.data<T>() : nullptr;
    const T margin = checked_value<T>(margin_arg);
    const Tensor x_c = self.contiguous();
    Tensor out = Tensor::empty(std::move(out_sizes), self.dtype());
    double total = 0;  // PyTorch's accumulate type
    for (std::int64_t f = 0; f < shape.nframe; ++f) {
      const T* x = x_c.data<T>() + f * shape.dim;
      const std::int64_t t = y[static_cast<std::size_t>(f)];
      if (t < 0 || t >= shape.dim) fail("target out of range");
      T sum = 0;
      for (std::int64_t d = 0; d < shape.dim; ++d) {
        if (d == t) continue;
        const T z = margin - x[t] + x[d];
        if (z > 0) sum += (p == 1 ? z : z * z) * (w != nullptr ? w[t] : T(1));
      }
      sum /= static_cast<T>(shape.dim);
      if (elementwise) out.mutable_data<T>()[f] = sum;
      total += static_cast<double>(sum);
    }
    if (!elementwise) {
      out.mutable_data<T>()[0] =
          static_cast<T>(reduction == kMean ? total / static_cast<double>(shape.nframe) : total);
    }
    return out;
  }));
}

// multilabel_margin_loss(Tensor self, Tensor target, int reduction=Mean): the target lists each
// frame's classes up to the first -1; per frame, sum over listed y and unlisted d of
// max(0, 1 - x[y] + x[d]), divided by the class count.
void multilabel_margin_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  IValue target_arg = pop(s), self_arg = pop(s);
  const Tensor& self = self_arg.to_tensor();
  const Tensor& target = target_arg.to_tensor();
  const MarginShape shape = margin_loss_shape(self);
  const bool consistent = self.dim() <= 1
                              ? target.dim() <= 1 && target.numel() == shape.dim
                              : target.dim() == 2 && target.sizes()[0] == shape.nframe &&
                                    target.sizes()[1] == shape.dim;
  if (!consistent) {
    fail(fmt::format("inconsistent size {} for argument #2 'target'",
                     nn::format_ints(target.sizes())));
  }
  const bool elementwise = reduction == kNone && target.dim() > 1;
  std::vector<std::int64_t> out_sizes =
      elementwise ? std::vector<std::int64_t>{shape.nframe} : std::vector<std::int64_t>{};
  if (self.numel() == 0) {
    s.emplace_back(Tensor::empty(std::move(out_sizes), self.dtype()));  // uninitialized in PyTorch
    return;
  }
  // The range check reads the target's values whatever its dtype; the kernel then wants int64.
  const Tensor as_long = to_dtype(target, DType::kInt64);
  const std::int64_t* raw = as_long.data<std::int64_t>();
  for (std::int64_t i = 0; i < as_long.numel(); ++i) {
    if (raw[i] < -1 || raw[i] >= shape.dim) fail("argument #2 'target' is out of range");
  }
  s.emplace_back(
      dispatch_floating(self.dtype(), "multilabel_margin_loss_forward_out_frame", [&](auto tag) {
        using T = decltype(tag);
        require_dtype(target, DType::kInt64);
        const Tensor x_c = self.contiguous();
        Tensor out = Tensor::empty(std::move(out_sizes), self.dtype());
        std::vector<char> is_target(static_cast<std::size_t>(shape.dim));
        double total = 0;
        for (std::int64_t f = 0; f < shape.nframe; ++f) {
          const T* x = x_c.data<T>() + f * shape.dim;
          const std::int64_t* y = raw + f * shape.dim;
          std::fill(is_target.begin(), is_target.end(), 0);
          std::int64_t listed = 0;
          while (listed < shape.dim && y[listed] >= 0)
            is_target[static_cast<std::size_t>(y[listed++])] = 1;
          double sum = 0;
          for (std::int64_t k = 0; k < listed; ++k) {
            for (std::int64_t d = 0; d < shape.dim; ++d) {
              if (is_target[static_cast<std::size_t>(d)]) continue;
              const T z = T(1) - x[y[k]] + x[d];
              if (z > 0) sum += static_cast<double>(z);
            }
          }
          if (elementwise)
            out.mutable_data<T>()[f] =
                static_cast<T>(static_cast<T>(sum) / static_cast<T>(shape.dim));
          total += static_cast<double>(static_cast<T>(sum));
        }
        if (!elementwise) {
          total /= static_cast<double>(shape.dim);
          if (reduction == kMean) total /= static_cast<double>(shape.nframe);
          out.mutable_data<T>()[0] = static_cast<T>(total);
        }
        return out;
      }));
}

}  // namespace

void register_class_loss_ops(OperatorRegistry& r) {
  const IValue none, mean(std::int64_t{1}), ignore(std::int64_t{-100}), one(std::int64_t{1});
  r.add({"aten::nll_loss", 5, {none, mean, ignore}, nll_op<nll_loss_impl>});
  r.add({"aten::nll_loss2d", 5, {none, mean, ignore}, nll_op<nll_loss2d_impl>});
  r.add({"aten::nll_loss_nd", 5, {none, mean, ignore}, nll_op<nll_loss_nd_impl>});
  r.add({"aten::cross_entropy_loss", 6, {none, mean, ignore, IValue(0.0)}, cross_entropy_loss});
  r.add({"aten::multi_margin_loss", 6, {one, one, none, mean}, multi_margin_loss});
  r.add({"aten::multilabel_margin_loss", 3, {mean}, multilabel_margin_loss});
}

}  // namespace symbolite::ops
