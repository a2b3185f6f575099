#include "symbolite/backends/xnnpack/elementwise_nodes.h"

#include <cmath>

#include "symbolite/backends/xnnpack/channels_last.h"
#include "symbolite/backends/xnnpack/node_support.h"

namespace symbolite::backends {
namespace {

using ops::IValue;
using tensor::Tensor;

// Where an in-place operator writes: into `self` when it can (dense and writable), as PyTorch
// does, so that other references to it see the change; else a new tensor laid out alike.
Tensor output_for(const Tensor& self, bool in_place) {
  if (in_place) {
    try {
      self.mutable_data<float>();
      return self;
    } catch (const Error&) {
      // A read-only view (a weight of the mapped file): the reference kernel will say so.
    }
  }
  return empty_like_dense(self);
}

enum class Unary { kClamp, kHardswish, kSigmoid };

class UnaryNode final : public XnnNode {
 public:
  UnaryNode(std::size_t num_args, XnnOperator op, Unary kind, bool in_place)
      : XnnNode(num_args), op_(std::move(op)), kind_(kind), in_place_(in_place) {}

  bool run(ops::Stack& stack) override {
    IValue* a = args(stack);
    if (!is_float_tensor(a[0])) return false;
    const Tensor& x = a[0].to_tensor();
    if (!is_dense(x) || x.numel() == 0) return false;
    Tensor out = output_for(x, in_place_);
    if (in_place_ && out.storage().data() != x.storage().data()) return false;
    const float* in = x.data<float>();
    float* o = out.mutable_data<float>();
    auto n = static_cast<std::size_t>(x.numel());
    std::lock_guard lock(mutex_);
    switch (kind_) {
      case Unary::kClamp:
        check_xnn(xnn_setup_clamp_nc_f32(op_.get(), n, in, o, xnnpack_threadpool()), "clamp setup");
        break;
      case Unary::kHardswish:
        check_xnn(xnn_setup_hardswish_nc_f32(op_.get(), n, in, o, xnnpack_threadpool()),
                  "hardswish setup");
        break;
      case Unary::kSigmoid:
        check_xnn(xnn_setup_sigmoid_nc_f32(op_.get(), n, in, o, xnnpack_threadpool()),
                  "sigmoid setup");
        break;
    }
    check_xnn(xnn_run_operator(op_.get(), xnnpack_threadpool()), "element-wise operator");
    return finish(stack, std::move(out));
  }

 private:
  XnnOperator op_;
  Unary kind_;
  bool in_place_;
};

std::unique_ptr<runtime::StepAccelerator> make_unary(Unary kind, float lo, float hi, bool in_place,
                                                     const runtime::CompiledProgram& p,
                                                     std::size_t step) {
  if (!xnnpack_available()) return nullptr;
  xnn_operator_t op = nullptr;
  xnn_status status = xnn_status_success;
  switch (kind) {
    case Unary::kClamp:
      status = xnn_create_clamp_nc_f32(1, 1, 1, lo, hi, 0, &op);
      break;
    case Unary::kHardswish:
      status = xnn_create_hardswish_nc_f32(1, 1, 1, 0, &op);
      break;
    case Unary::kSigmoid:
      status = xnn_create_sigmoid_nc_f32(1, 1, 1, 0, &op);
      break;
  }
  if (status != xnn_status_success) return nullptr;
  return std::make_unique<UnaryNode>(p.operators[step].def->num_args, XnnOperator(op), kind,
                                     in_place);
}

enum class Binary { kAdd, kSubtract, kMultiply, kDivide };

using ShapeVector = std::vector<std::size_t>;

// numpy broadcasting of two shapes; nullopt when they do not broadcast.
std::optional<std::vector<std::int64_t>> broadcast(const std::vector<std::int64_t>& a,
                                                   const std::vector<std::int64_t>& b) {
  std::size_t n = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    std::int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// `t` seen as 4-D NCHW (leading 1s), e.g. a per-channel [C, 1, 1].
Tensor as_4d(const Tensor& t) {
  auto sizes = t.sizes();
  auto strides = t.strides();
  while (sizes.size() < 4) {
    sizes.insert(sizes.begin(), 1);
    strides.insert(strides.begin(), sizes.size() > 1 ? sizes[1] * strides[0] : 1);
  }
  return Tensor::from_storage(t.storage(), t.dtype(), sizes, strides, t.storage_offset());
}

// The physical (memory-order) shape of a channels-last 4-D tensor: [N, H, W, C].
ShapeVector nhwc_shape(const Tensor& t) {
  const auto& s = t.sizes();
  return {static_cast<std::size_t>(s[0]), static_cast<std::size_t>(s[2]),
          static_cast<std::size_t>(s[3]), static_cast<std::size_t>(s[1])};
}

ShapeVector shape_of(const Tensor& t) {
  ShapeVector out;
  for (auto s : t.sizes()) out.push_back(static_cast<std::size_t>(s));
  if (out.empty()) out.push_back(1);
  return out;
}

class BinaryNode final : public XnnNode {
 public:
  BinaryNode(std::size_t num_args, XnnOperator op, Binary kind, bool in_place)
      : XnnNode(num_args), op_(std::move(op)), kind_(kind), in_place_(in_place) {}

  bool run(ops::Stack& stack) override {
    IValue* a = args(stack);
    if (!is_float_tensor(a[0]) || !is_float_tensor(a[1])) return false;
    Tensor x = a[0].to_tensor();
    Tensor y = a[1].to_tensor();
    if (x.dim() > 4 || y.dim() > 4 || x.numel() == 0 || y.numel() == 0) return false;
    auto sizes = broadcast(x.sizes(), y.sizes());
    if (!sizes || (in_place_ && *sizes != x.sizes())) return false;
    // Work channels-last when a 4-D operand is (XNNPACK's convolutions made it so).
    bool channels_last =
        sizes->size() == 4 && ((x.dim() == 4 && !x.is_contiguous() && is_channels_last(x)) ||
                               (y.dim() == 4 && !y.is_contiguous() && is_channels_last(y)));
    ShapeVector xs, ys;
    Tensor out;
    if (channels_last) {
      x = to_channels_last(as_4d(x));
      y = to_channels_last(as_4d(y));
      xs = nhwc_shape(x);
      ys = nhwc_shape(y);
      out = in_place_ ? output_for(a[0].to_tensor(), true) : empty_channels_last(*sizes);
      if (!is_channels_last(out)) return false;
    } else {
      x = x.contiguous();
      y = y.contiguous();
      xs = shape_of(x);
      ys = shape_of(y);
      out = in_place_ ? output_for(a[0].to_tensor(), true)
                      : Tensor::uninitialized(*sizes, tensor::DType::kFloat32);
      if (!out.is_contiguous()) return false;
    }
    if (in_place_ && out.storage().data() != a[0].to_tensor().storage().data()) return false;
    const float* px = x.data<float>();
    const float* py = y.data<float>();
    float* po = out.mutable_data<float>();
    std::lock_guard lock(mutex_);
    xnn_status status = xnn_status_success;
    switch (kind_) {
      case Binary::kAdd:
        status = xnn_setup_add_nd_f32(op_.get(), xs.size(), xs.data(), ys.size(), ys.data(), px, py,
                                      po, xnnpack_threadpool());
        break;
      case Binary::kSubtract:
        status = xnn_setup_subtract_nd_f32(op_.get(), xs.size(), xs.data(), ys.size(), ys.data(),
                                           px, py, po, xnnpack_threadpool());
        break;
      case Binary::kMultiply:
        status = xnn_setup_multiply_nd_f32(op_.get(), xs.size(), xs.data(), ys.size(), ys.data(),
                                           px, py, po, xnnpack_threadpool());
        break;
      case Binary::kDivide:
        status = xnn_setup_divide_nd_f32(op_.get(), xs.size(), xs.data(), ys.size(), ys.data(), px,
                                         py, po, xnnpack_threadpool());
        break;
    }
    check_xnn(status, "binary operator setup");
    check_xnn(xnn_run_operator(op_.get(), xnnpack_threadpool()), "binary operator");
    return finish(stack, std::move(out));
  }

 private:
  XnnOperator op_;
  Binary kind_;
  bool in_place_;
};

std::unique_ptr<runtime::StepAccelerator> make_binary(Binary kind, bool in_place,
                                                      const runtime::CompiledProgram& p,
                                                      std::size_t step) {
  if (kind == Binary::kAdd || kind == Binary::kSubtract) {
    auto alpha = static_number(p, step, 2);  // x + alpha * y: XNNPACK has alpha 1 only
    if (!alpha || *alpha != 1.0) return nullptr;
  }
  if (!xnnpack_available()) return nullptr;
  xnn_operator_t op = nullptr;
  xnn_status status = xnn_status_success;
  switch (kind) {
    case Binary::kAdd:
      status = xnn_create_add_nd_f32(kNoMin, kNoMax, 0, &op);
      break;
    case Binary::kSubtract:
      status = xnn_create_subtract_nd_f32(kNoMin, kNoMax, 0, &op);
      break;
    case Binary::kMultiply:
      status = xnn_create_multiply_nd_f32(kNoMin, kNoMax, 0, &op);
      break;
    case Binary::kDivide:
      status = xnn_create_divide_nd_f32(kNoMin, kNoMax, 0, &op);
      break;
  }
  if (status != xnn_status_success) return nullptr;
  return std::make_unique<BinaryNode>(p.operators[step].def->num_args, XnnOperator(op), kind,
                                      in_place);
}

// Inference batch norm: y = x * scale + shift per channel (dimension 1), with scale and shift
// folded from the running statistics at load.
class BatchNormNode final : public XnnNode {
 public:
  BatchNormNode(std::size_t num_args, XnnOperator multiply, XnnOperator add,
                std::vector<float> scale, std::vector<float> shift)
      : XnnNode(num_args),
        multiply_(std::move(multiply)),
        add_(std::move(add)),
        scale_(std::move(scale)),
        shift_(std::move(shift)) {}

  bool run(ops::Stack& stack) override {
    IValue* a = args(stack);
    if (!is_float_tensor(a[0])) return false;
    const Tensor& x = a[0].to_tensor();
    const auto channels = static_cast<std::size_t>(scale_.size());
    if (x.dim() < 2 || x.dim() > 4 || static_cast<std::size_t>(x.sizes()[1]) != channels ||
        x.numel() == 0) {
      return false;
    }
    ShapeVector xs, cs;
    Tensor in, out;
    if (x.dim() == 4 && !x.is_contiguous() && is_channels_last(x)) {
      in = x;
      xs = nhwc_shape(x);
      cs = {1, 1, 1, channels};
      out = empty_channels_last(x.sizes());
    } else {
      in = x.contiguous();
      xs = shape_of(in);
      cs.assign(xs.size(), 1);
      cs[1] = channels;
      out = Tensor::uninitialized(x.sizes(), tensor::DType::kFloat32);
    }
    float* po = out.mutable_data<float>();
    std::lock_guard lock(mutex_);
    check_xnn(xnn_setup_multiply_nd_f32(multiply_.get(), xs.size(), xs.data(), cs.size(), cs.data(),
                                        in.data<float>(), scale_.data(), po, xnnpack_threadpool()),
              "batch norm scale setup");
    check_xnn(xnn_run_operator(multiply_.get(), xnnpack_threadpool()), "batch norm scale");
    check_xnn(xnn_setup_add_nd_f32(add_.get(), xs.size(), xs.data(), cs.size(), cs.data(), po,
                                   shift_.data(), po, xnnpack_threadpool()),
              "batch norm shift setup");
    check_xnn(xnn_run_operator(add_.get(), xnnpack_threadpool()), "batch norm shift");
    return finish(stack, std::move(out));
  }

 private:
  XnnOperator multiply_, add_;
  std::vector<float> scale_, shift_;
};

std::unique_ptr<runtime::StepAccelerator> make_batch_norm(const runtime::CompiledProgram& p,
                                                          std::size_t step) {
  // batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn)
  auto weight = static_arg(p, step, 1);
  auto bias = static_arg(p, step, 2);
  auto mean = static_arg(p, step, 3);
  auto var = static_arg(p, step, 4);
  auto training = static_arg(p, step, 5);
  auto eps = static_number(p, step, 7);
  if (!weight || !bias || !mean || !var || !training || !eps ||
      !training->is(IValue::Kind::kBool) || training->to_bool() || !is_float_tensor(*mean) ||
      !is_float_tensor(*var)) {
    return nullptr;
  }
  Tensor m = mean->to_tensor().contiguous();
  Tensor v = var->to_tensor().contiguous();
  const std::int64_t c = m.numel();
  if (m.dim() != 1 || v.dim() != 1 || v.numel() != c) return nullptr;
  auto vector_or_none = [&](const IValue& t, float fill) -> std::optional<std::vector<float>> {
    if (t.is_none()) return std::vector<float>(static_cast<std::size_t>(c), fill);
    if (!is_float_tensor(t) || t.to_tensor().numel() != c || t.to_tensor().dim() != 1)
      return std::nullopt;
    Tensor tc = t.to_tensor().contiguous();
    return std::vector<float>(tc.data<float>(), tc.data<float>() + c);
  };
  auto w = vector_or_none(*weight, 1.0f);
  auto b = vector_or_none(*bias, 0.0f);
  if (!w || !b || !xnnpack_available()) return nullptr;
  std::vector<float> scale(static_cast<std::size_t>(c)), shift(static_cast<std::size_t>(c));
  for (std::size_t i = 0; i < scale.size(); ++i) {
    // As ATen computes it: invstd in float, then weight * invstd and bias - mean * that.
    float invstd = 1.0f / std::sqrt(v.data<float>()[i] + static_cast<float>(*eps));
    scale[i] = (*w)[i] * invstd;
    shift[i] = (*b)[i] - m.data<float>()[i] * scale[i];
  }
  xnn_operator_t multiply = nullptr, add = nullptr;
  if (xnn_create_multiply_nd_f32(kNoMin, kNoMax, 0, &multiply) != xnn_status_success)
    return nullptr;
  XnnOperator owned_multiply(multiply);
  if (xnn_create_add_nd_f32(kNoMin, kNoMax, 0, &add) != xnn_status_success) return nullptr;
  return std::make_unique<BatchNormNode>(p.operators[step].def->num_args, std::move(owned_multiply),
                                         XnnOperator(add), std::move(scale), std::move(shift));
}

// Inference dropout: the input itself.
class IdentityNode final : public XnnNode {
 public:
  explicit IdentityNode(std::size_t num_args) : XnnNode(num_args) {}
  bool run(ops::Stack& stack) override {
    IValue x = args(stack)[0];
    if (!x.is(IValue::Kind::kTensor)) return false;
    return finish(stack, x.to_tensor());
  }
};

}  // namespace

std::unique_ptr<runtime::StepAccelerator> make_elementwise_node(std::string_view op,
                                                                const runtime::CompiledProgram& p,
                                                                std::size_t step) {
  const bool in_place = op.find("_.") != std::string_view::npos || op.ends_with("_");
  if (op == "aten::relu" || op == "aten::relu_")
    return make_unary(Unary::kClamp, 0.0f, kNoMax, in_place, p, step);
  if (op == "aten::relu6" || op == "aten::relu6_")
    return make_unary(Unary::kClamp, 0.0f, 6.0f, in_place, p, step);
  if (op == "aten::hardtanh" || op == "aten::hardtanh_") {
    auto lo = static_number(p, step, 1);
    auto hi = static_number(p, step, 2);
    if (!lo || !hi || *lo > *hi) return nullptr;
    return make_unary(Unary::kClamp, static_cast<float>(*lo), static_cast<float>(*hi), in_place, p,
                      step);
  }
  if (op == "aten::hardswish" || op == "aten::hardswish_")
    return make_unary(Unary::kHardswish, 0, 0, in_place, p, step);
  if (op == "aten::sigmoid" || op == "aten::sigmoid_")
    return make_unary(Unary::kSigmoid, 0, 0, in_place, p, step);
  if (op == "aten::add.Tensor" || op == "aten::add_.Tensor")
    return make_binary(Binary::kAdd, in_place, p, step);
  if (op == "aten::sub.Tensor" || op == "aten::sub_.Tensor")
    return make_binary(Binary::kSubtract, in_place, p, step);
  if (op == "aten::mul.Tensor" || op == "aten::mul_.Tensor")
    return make_binary(Binary::kMultiply, in_place, p, step);
  if (op == "aten::div.Tensor" || op == "aten::div_.Tensor")
    return make_binary(Binary::kDivide, in_place, p, step);
  if (op == "aten::batch_norm") return make_batch_norm(p, step);
  if (op == "aten::dropout" || op == "aten::dropout_") {
    auto train = static_arg(p, step, 2);
    if (!train || !train->is(IValue::Kind::kBool) || train->to_bool()) return nullptr;
    return std::make_unique<IdentityNode>(p.operators[step].def->num_args);
  }
  return nullptr;
}

}  // namespace symbolite::backends
