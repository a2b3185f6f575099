#include "symbolite/backends/xnnpack/pooling_nodes.h"

#include <algorithm>

#include "symbolite/backends/xnnpack/channels_last.h"
#include "symbolite/backends/xnnpack/node_support.h"

namespace symbolite::backends {
namespace {

using ops::IValue;
using tensor::Tensor;

enum class Pool { kMax, kAverage, kGlobalAverage };

class PoolNode final : public XnnNode {
 public:
  PoolNode(std::size_t num_args, Pool kind, std::vector<std::int64_t> kernel,
           std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
           std::vector<std::int64_t> dilation, bool ceil_mode = false)
      : XnnNode(num_args),
        kind_(kind),
        kernel_(std::move(kernel)),
        stride_(std::move(stride)),
        padding_(std::move(padding)),
        dilation_(std::move(dilation)),
        ceil_mode_(ceil_mode) {}

  bool run(ops::Stack& stack) override {
    IValue* a = args(stack);
    if (!is_float_tensor(a[0])) return false;
    const Tensor& x = a[0].to_tensor();
    if (x.dim() != 4 || x.numel() == 0) return false;
    const std::int64_t n = x.sizes()[0], c = x.sizes()[1], h = x.sizes()[2], w = x.sizes()[3];
    std::int64_t ho = 1, wo = 1;
    if (kind_ != Pool::kGlobalAverage) {
      // PyTorch refuses padding over half the kernel; the reference kernel says so.
      if (2 * padding_[0] > kernel_[0] || 2 * padding_[1] > kernel_[1]) return false;
      auto hh = output_size(h, 0);
      auto ww = output_size(w, 1);
      if (!hh || !ww || *hh <= 0 || *ww <= 0) return false;
      ho = *hh;
      wo = *ww;
    }
    Tensor in = to_channels_last(x);
    Tensor out = empty_channels_last({n, c, ho, wo});
    std::lock_guard lock(mutex_);
    // Ceil mode pads the bottom and right edges so that XNNPACK's floor-mode windows cover the
    // same rows and columns; max pooling never picks the padding.
    const std::int64_t extra_h = kind_ == Pool::kMax ? extra_padding(h, ho, 0) : 0;
    const std::int64_t extra_w = kind_ == Pool::kMax ? extra_padding(w, wo, 1) : 0;
    if (!op_ || channels_ != c || extra_h != extra_h_ || extra_w != extra_w_) {
      extra_h_ = extra_h;
      extra_w_ = extra_w;
      op_ = create(static_cast<std::size_t>(c));
      channels_ = c;
      if (!op_) return false;
    }
    const auto z = [](std::int64_t v) { return static_cast<std::size_t>(v); };
    switch (kind_) {
      case Pool::kMax:
        check_xnn(xnn_setup_max_pooling2d_nhwc_f32(op_.get(), z(n), z(h), z(w), in.data<float>(),
                                                   out.mutable_data<float>(), xnnpack_threadpool()),
                  "max pooling setup");
        break;
      case Pool::kAverage:
        check_xnn(
            xnn_setup_average_pooling2d_nhwc_f32(op_.get(), z(n), z(h), z(w), in.data<float>(),
                                                 out.mutable_data<float>(), xnnpack_threadpool()),
            "average pooling setup");
        break;
      case Pool::kGlobalAverage:
        check_xnn(xnn_setup_global_average_pooling_nwc_f32(
                      op_.get(), z(n), z(h * w), in.data<float>(), out.mutable_data<float>(),
                      xnnpack_threadpool()),
                  "global average pooling setup");
        break;
    }
    check_xnn(xnn_run_operator(op_.get(), xnnpack_threadpool()), "pooling");
    return finish(stack, std::move(out));
  }

 private:
  XnnOperator create(std::size_t channels) const {
    const auto u = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
    xnn_operator_t op = nullptr;
    xnn_status status = xnn_status_unsupported_parameter;
    switch (kind_) {
      case Pool::kMax:
        status = xnn_create_max_pooling2d_nhwc_f32(
            u(padding_[0]), u(padding_[1] + extra_w_), u(padding_[0] + extra_h_), u(padding_[1]),
            u(kernel_[0]), u(kernel_[1]), u(stride_[0]), u(stride_[1]), u(dilation_[0]),
            u(dilation_[1]), channels, channels, channels, kNoMin, kNoMax, 0, &op);
        break;
      case Pool::kAverage:
        status = xnn_create_average_pooling2d_nhwc_f32(0, 0, 0, 0, u(kernel_[0]), u(kernel_[1]),
                                                       u(stride_[0]), u(stride_[1]), channels,
                                                       channels, channels, kNoMin, kNoMax, 0, &op);
        break;
      case Pool::kGlobalAverage:
        status = xnn_create_global_average_pooling_nwc_f32(channels, channels, channels, kNoMin,
                                                           kNoMax, 0, &op);
        break;
    }
    return status == xnn_status_success ? XnnOperator(op) : XnnOperator();
  }

  // PyTorch's pooled size: floor or ceil mode, where a last window that would start in the
  // right padding is dropped.
  std::optional<std::int64_t> output_size(std::int64_t in, std::size_t d) const {
    if (!ceil_mode_) return pooled_size(in, kernel_[d], stride_[d], padding_[d], dilation_[d]);
    std::int64_t span = in + 2 * padding_[d] - dilation_[d] * (kernel_[d] - 1) - 1;
    if (span < 0) return std::nullopt;
    std::int64_t out = (span + stride_[d] - 1) / stride_[d] + 1;
    if ((out - 1) * stride_[d] >= in + padding_[d]) --out;
    return out;
  }

  // Padding beyond `padding_` at the end of dimension `d` for `out` floor-mode windows.
  std::int64_t extra_padding(std::int64_t in, std::int64_t out, std::size_t d) const {
    std::int64_t needed = (out - 1) * stride_[d] + dilation_[d] * (kernel_[d] - 1) + 1;
    return std::max<std::int64_t>(0, needed - (in + 2 * padding_[d]));
  }

  Pool kind_;
  std::vector<std::int64_t> kernel_, stride_, padding_, dilation_;
  bool ceil_mode_;
  XnnOperator op_;
  std::int64_t channels_ = -1;
  std::int64_t extra_h_ = 0, extra_w_ = 0;
};

bool positive(const std::vector<std::int64_t>& v) {
  for (auto x : v) {
    if (x <= 0) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<runtime::StepAccelerator> make_pooling_node(std::string_view op,
                                                            const runtime::CompiledProgram& p,
                                                            std::size_t step) {
  if (!xnnpack_available()) return nullptr;
  const std::size_t num_args = p.operators[step].def->num_args;
  if (op == "aten::adaptive_avg_pool2d") {
    auto size = static_ints(p, step, 1, 2);
    if (!size || (*size)[0] != 1 || (*size)[1] != 1) return nullptr;
    return std::make_unique<PoolNode>(num_args, Pool::kGlobalAverage, std::vector<std::int64_t>{},
                                      std::vector<std::int64_t>{}, std::vector<std::int64_t>{},
                                      std::vector<std::int64_t>{});
  }
  const bool max = op == "aten::max_pool2d";
  if (!max && op != "aten::avg_pool2d") return nullptr;
  // max_pool2d(x, kernel, stride, padding, dilation, ceil_mode)
  // avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
  auto kernel = static_ints(p, step, 1, 2);
  auto stride_arg = static_arg(p, step, 2);
  auto padding = static_ints(p, step, 3, 2);
  if (!kernel || !stride_arg || !padding || !positive(*kernel)) return nullptr;
  // An empty stride means the kernel size, as in PyTorch.
  auto stride = stride_arg->is(IValue::Kind::kList) && stride_arg->to_list().empty()
                    ? kernel
                    : static_ints(p, step, 2, 2);
  if (!stride || !positive(*stride) || (*kernel)[0] * (*kernel)[1] < 2) return nullptr;
  const std::vector<std::int64_t> dilation = {1, 1};
  if (max) {
    auto d = static_ints(p, step, 4, 2);
    auto ceil = static_arg(p, step, 5);
    if (!d || !positive(*d) || !ceil || !ceil->is(IValue::Kind::kBool)) return nullptr;
    return std::make_unique<PoolNode>(num_args, Pool::kMax, *kernel, *stride, *padding, *d,
                                      ceil->to_bool());
  } else {
    auto ceil = static_arg(p, step, 4);
    auto divisor = static_arg(p, step, 6);
    if (!ceil || !ceil->is(IValue::Kind::kBool) || ceil->to_bool() || !divisor ||
        !divisor->is_none() || (*padding)[0] != 0 || (*padding)[1] != 0) {
      return nullptr;
    }
  }
  return std::make_unique<PoolNode>(num_args, Pool::kAverage, *kernel, *stride, *padding, dilation);
}

}  // namespace symbolite::backends
