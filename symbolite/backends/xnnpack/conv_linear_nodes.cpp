// aten::conv2d and aten::linear on XNNPACK: weights repacked at load into the layouts XNNPACK
// takes (it copies them into its own packed form when the operator is created).
#include "symbolite/backends/xnnpack/conv_linear_nodes.h"
#include "symbolite/backends/xnnpack/channels_last.h"

#include <memory>
#include "symbolite/backends/xnnpack/node_support.h"

namespace symbolite::backends {
namespace {

using ops::IValue;
using tensor::Tensor;

// The bias as XNNPACK reads it (null for none); nullopt when it is not a float vector of `n`.
std::optional<const float*> bias_of(const std::optional<IValue>& bias, std::int64_t n,
                                    Tensor& keep) {
  if (!bias) return std::nullopt;
  if (bias->is_none()) return static_cast<const float*>(nullptr);
  if (!is_float_tensor(*bias) || bias->to_tensor().dim() != 1 ||
      bias->to_tensor().sizes()[0] != n) {
    return std::nullopt;
  }
  keep = bias->to_tensor().contiguous();
  return keep.data<float>();
}

class Conv2dNode final : public XnnNode {
 public:
  static std::unique_ptr<runtime::StepAccelerator> make(const runtime::CompiledProgram& p,
                                                        std::size_t step) {
    auto weight = static_arg(p, step, 1);
    auto stride = static_ints(p, step, 3, 2);
    auto padding = static_ints(p, step, 4, 2);
    auto dilation = static_ints(p, step, 5, 2);
    auto groups = static_arg(p, step, 6);
    if (!weight || !is_float_tensor(*weight) || weight->to_tensor().dim() != 4 || !stride ||
        !padding || !dilation || !groups || !groups->is(IValue::Kind::kInt)) {
      return nullptr;
    }
    Tensor w = weight->to_tensor().contiguous();
    const auto& s = w.sizes();
    const std::int64_t out_channels = s[0], group_in = s[1], kh = s[2], kw = s[3];
    const std::int64_t g = groups->to_int();
    if (g <= 0 || out_channels % g != 0 || (*stride)[0] <= 0 || (*stride)[1] <= 0 ||
        (*padding)[0] < 0 || (*padding)[1] < 0 || (*dilation)[0] <= 0 || (*dilation)[1] <= 0) {
      return nullptr;
    }
    Tensor bias_keep;
    auto bias = bias_of(static_arg(p, step, 2), out_channels, bias_keep);
    if (!bias) return nullptr;
    // PyTorch's [O][I/g][kH][kW] -> XNNPACK's [O][kH][kW][I/g].
    std::vector<float> packed(static_cast<std::size_t>(w.numel()));
    const float* src = w.data<float>();
    for (std::int64_t o = 0; o < out_channels; ++o) {
      for (std::int64_t i = 0; i < group_in; ++i) {
        for (std::int64_t y = 0; y < kh; ++y) {
          for (std::int64_t x = 0; x < kw; ++x) {
            packed[static_cast<std::size_t>(((o * kh + y) * kw + x) * group_in + i)] =
                src[((o * group_in + i) * kh + y) * kw + x];
          }
        }
      }
    }
    auto node = std::make_unique<Conv2dNode>(p.operators[step].def->num_args);
    node->in_channels_ = group_in * g;
    node->out_channels_ = out_channels;
    node->kernel_ = {kh, kw};
    node->stride_ = *stride;
    node->padding_ = *padding;
    node->dilation_ = *dilation;
    xnn_operator_t op = nullptr;
    const auto u = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
    if (!xnnpack_available() ||
        xnn_create_convolution2d_nhwc_f32(
            u((*padding)[0]), u((*padding)[1]), u((*padding)[0]), u((*padding)[1]), u(kh), u(kw),
            u((*stride)[0]), u((*stride)[1]), u((*dilation)[0]), u((*dilation)[1]), u(g),
            static_cast<std::size_t>(group_in), static_cast<std::size_t>(out_channels / g),
            static_cast<std::size_t>(group_in * g), static_cast<std::size_t>(out_channels),
            packed.data(), *bias, kNoMin, kNoMax, 0, &op) != xnn_status_success) {
      return nullptr;
    }
    node->op_ = XnnOperator(op);
    return node;
  }

  bool run(ops::Stack& stack) override {
    IValue* a = args(stack);
    if (!is_float_tensor(a[0])) return false;
    const Tensor& x = a[0].to_tensor();
    if (x.dim() != 4 || x.sizes()[1] != in_channels_ || x.numel() == 0) return false;
    const std::int64_t n = x.sizes()[0], h = x.sizes()[2], w = x.sizes()[3];
    auto ho = pooled_size(h, kernel_[0], stride_[0], padding_[0], dilation_[0]);
    auto wo = pooled_size(w, kernel_[1], stride_[1], padding_[1], dilation_[1]);
    if (!ho || !wo || *ho <= 0 || *wo <= 0) return false;
    Tensor in = to_channels_last(x);
    Tensor out = empty_channels_last({n, out_channels_, *ho, *wo});
    std::lock_guard lock(mutex_);
    check_xnn(xnn_setup_convolution2d_nhwc_f32(op_.get(), static_cast<std::size_t>(n),
                                               static_cast<std::size_t>(h),
                                               static_cast<std::size_t>(w), in.data<float>(),
                                               out.mutable_data<float>(), xnnpack_threadpool()),
              "convolution setup");
    check_xnn(xnn_run_operator(op_.get(), xnnpack_threadpool()), "convolution");
    return finish(stack, std::move(out));
  }

 private:
  using XnnNode::XnnNode;
  XnnOperator op_;
  std::int64_t in_channels_ = 0, out_channels_ = 0;
  std::vector<std::int64_t> kernel_, stride_, padding_, dilation_;
};

class LinearNode final : public XnnNode {
 public:
  static std::unique_ptr<runtime::StepAccelerator> make(const runtime::CompiledProgram& p,
                                                        std::size_t step) {
    auto weight = static_arg(p, step, 1);
    if (!weight || !is_float_tensor(*weight) || weight->to_tensor().dim() != 2) return nullptr;
    Tensor w = weight->to_tensor().contiguous();  // [out][in]: XNNPACK's own layout
    const std::int64_t out_features = w.sizes()[0], in_features = w.sizes()[1];
    Tensor bias_keep;
    auto bias = bias_of(static_arg(p, step, 2), out_features, bias_keep);
    if (!bias || !xnnpack_available()) return nullptr;
    xnn_operator_t op = nullptr;
    if (xnn_create_fully_connected_nc_f32(
            static_cast<std::size_t>(in_features), static_cast<std::size_t>(out_features),
            static_cast<std::size_t>(in_features), static_cast<std::size_t>(out_features),
            w.data<float>(), *bias, kNoMin, kNoMax, 0, &op) != xnn_status_success) {
      return nullptr;
    }
    auto node = std::make_unique<LinearNode>(p.operators[step].def->num_args);
    node->op_ = XnnOperator(op);
    node->in_ = in_features;
    node->out_ = out_features;
    return node;
  }

  bool run(ops::Stack& stack) override {
    IValue* a = args(stack);
    if (!is_float_tensor(a[0])) return false;
    const Tensor& x = a[0].to_tensor();
    if (x.dim() < 1 || x.sizes().back() != in_ || x.numel() == 0) return false;
    Tensor in = x.contiguous();
    auto sizes = x.sizes();
    sizes.back() = out_;
    Tensor out = Tensor::uninitialized(sizes, tensor::DType::kFloat32);
    std::lock_guard lock(mutex_);
    check_xnn(xnn_setup_fully_connected_nc_f32(op_.get(), static_cast<std::size_t>(x.numel() / in_),
                                               in.data<float>(), out.mutable_data<float>(),
                                               xnnpack_threadpool()),
              "fully connected setup");
    check_xnn(xnn_run_operator(op_.get(), xnnpack_threadpool()), "fully connected");
    return finish(stack, std::move(out));
  }

 private:
  using XnnNode::XnnNode;
  XnnOperator op_;
  std::int64_t in_ = 0, out_ = 0;
};

}  // namespace

std::unique_ptr<runtime::StepAccelerator> make_conv2d_node(const runtime::CompiledProgram& p,
                                                           std::size_t step) {
  return Conv2dNode::make(p, step);
}

std::unique_ptr<runtime::StepAccelerator> make_linear_node(const runtime::CompiledProgram& p,
                                                           std::size_t step) {
  return LinearNode::make(p, step);
}

}  // namespace symbolite::backends
