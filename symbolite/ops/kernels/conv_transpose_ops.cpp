// aten::conv_transpose1d / conv_transpose2d.input / conv_transpose3d.input: transposed
// convolutions (nn.ConvTranspose*d) by their scatter definition: every input element adds
// input * weight[ic, oc, k] to output position i * stride - padding + k * dilation.
// float32 and float64; stride, padding, output_padding, groups and dilation.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// Spatial sizes padded to three (leading ones).
Ints to3(const Ints& v, std::int64_t fill) {
  Ints out(3 - v.size(), fill);
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

template <typename T>
void scatter(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out, const Ints& in3,
             const Ints& k3, const Ints& out3, const Ints& st, const Ints& pad, const Ints& dil,
             std::int64_t groups) {
  const std::int64_t n = x.sizes()[0], cin = x.sizes()[1];
  const std::int64_t cout_g = w.sizes()[1], cin_g = cin / groups, cout = cout_g * groups;
  const std::int64_t in_plane = in3[0] * in3[1] * in3[2];
  const std::int64_t out_plane = out3[0] * out3[1] * out3[2];
  const std::int64_t k_plane = k3[0] * k3[1] * k3[2];
  const T* xd = x.data<T>();
  const T* wd = w.data<T>();
  T* od = out.mutable_data<T>();
  Tensor b = bias != nullptr ? bias->contiguous() : Tensor();
  for (std::int64_t bn = 0; bn < n; ++bn) {
    for (std::int64_t oc = 0; oc < cout; ++oc) {
      T* o = od + (bn * cout + oc) * out_plane;
      const T init = bias != nullptr ? b.data<T>()[oc] : T(0);
      std::fill(o, o + out_plane, init);
    }
    for (std::int64_t ic = 0; ic < cin; ++ic) {
      const std::int64_t g = ic / cin_g;
      const T* xi = xd + (bn * cin + ic) * in_plane;
      for (std::int64_t ocg = 0; ocg < cout_g; ++ocg) {
        T* o = od + (bn * cout + g * cout_g + ocg) * out_plane;
        const T* wk = wd + (ic * cout_g + ocg) * k_plane;
        for (std::int64_t kd = 0; kd < k3[0]; ++kd) {
          for (std::int64_t kh = 0; kh < k3[1]; ++kh) {
            for (std::int64_t kw = 0; kw < k3[2]; ++kw) {
              const T wv = wk[(kd * k3[1] + kh) * k3[2] + kw];
              for (std::int64_t id = 0; id < in3[0]; ++id) {
                const std::int64_t od_ = id * st[0] - pad[0] + kd * dil[0];
                if (od_ < 0 || od_ >= out3[0]) continue;
                for (std::int64_t ih = 0; ih < in3[1]; ++ih) {
                  const std::int64_t oh = ih * st[1] - pad[1] + kh * dil[1];
                  if (oh < 0 || oh >= out3[1]) continue;
                  const T* xrow = xi + (id * in3[1] + ih) * in3[2];
                  T* orow = o + (od_ * out3[1] + oh) * out3[2];
                  for (std::int64_t iw = 0; iw < in3[2]; ++iw) {
                    const std::int64_t ow = iw * st[2] - pad[2] + kw * dil[2];
                    if (ow < 0 || ow >= out3[2]) continue;
                    orow[ow] += xrow[iw] * wv;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

// conv_transpose{1,2,3}d(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//   int[] padding, int[] output_padding, int groups, int[] dilation) -> Tensor
template <int Spatial>
void conv_transpose(Stack& s) {
  const char* name = Spatial == 1   ? "conv_transpose1d"
                     : Spatial == 2 ? "conv_transpose2d"
                                    : "conv_transpose3d";
  IValue dilation_arg = pop(s);
  const std::int64_t groups = pop(s).to_int();
  IValue output_padding_arg = pop(s);
  IValue padding_arg = pop(s);
  IValue stride_arg = pop(s);
  IValue bias_arg = pop(s);
  IValue weight_arg = pop(s);
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  const Tensor& weight = weight_arg.to_tensor();
  const Tensor* bias = optional_tensor(bias_arg);
  if (bias != nullptr && bias->dtype() != input.dtype()) {
    fail(fmt::format("Input type ({}) and bias type ({}) should be the same",
                     tensor::type_meta_name(input.dtype()), tensor::type_meta_name(bias->dtype())));
  }
  const std::int64_t unbatched = Spatial + 1;
  const bool batched = input.dim() == unbatched + 1;
  if (input.dim() != unbatched && !batched) {
    fail(
        fmt::format("Expected {}D (unbatched) or {}D (batched) input to {}, but got input of "
                    "size: {}",
                    unbatched, unbatched + 1, name, format_ints(input.sizes())));
  }
  Tensor x = input.contiguous();
  if (!batched) {
    Ints sizes = x.sizes();
    sizes.insert(sizes.begin(), 1);
    x = view_as(x, sizes);
  }
  const Ints stride = expand_conv_param(int_list_arg(stride_arg), "stride", Spatial);
  const Ints padding = expand_conv_param(int_list_arg(padding_arg), "padding", Spatial);
  const Ints output_padding =
      expand_conv_param(int_list_arg(output_padding_arg), "output_padding", Spatial);
  const Ints dilation = expand_conv_param(int_list_arg(dilation_arg), "dilation", Spatial);
  if (weight.dim() != Spatial + 2) {
    fail(
        fmt::format("Expected {0}-dimensional input for {0}-dimensional weight {1}, but got "
                    "{2}-dimensional input of size {3} instead",
                    weight.dim(), format_ints(weight.sizes()), x.dim(), format_ints(x.sizes())));
  }
  Tensor out = transposed_convolution(x, weight, bias, stride, padding, output_padding, dilation,
                                      groups, name);
  if (!batched) out = view_as(out, Ints(out.sizes().begin() + 1, out.sizes().end()));
  s.emplace_back(std::move(out));
}

}  // namespace

Tensor transposed_convolution(const Tensor& input, const Tensor& weight, const Tensor* bias,
                              const Ints& stride, const Ints& padding, const Ints& output_padding,
                              const Ints& dilation, std::int64_t groups, std::string_view op) {
  const Tensor& x = input;
  const auto spatial = static_cast<int>(x.dim() - 2);
  const Ints& ws = weight.sizes();
  const Ints& is = x.sizes();
  if (groups <= 0) fail("non-positive groups is not supported");
  check_conv_params(padding, output_padding, stride);
  check_weight_groups(ws, groups);
  if (is[1] != ws[0]) {
    fail(
        fmt::format("Given transposed=1, weight of size {}, expected input{} to have {} "
                    "channels, but got {} channels instead",
                    format_ints(ws), format_ints(is), ws[0], is[1]));
  }
  const std::int64_t cout = ws[1] * groups;
  if (bias != nullptr && !(bias->dim() == 1 && bias->sizes()[0] == cout)) {
    fail(
        fmt::format("Given transposed=1, weight of size {}, expected bias to be 1-dimensional "
                    "with {} elements, but got bias of size {} instead",
                    format_ints(ws), cout, format_ints(bias->sizes())));
  }
  if (weight.dtype() != x.dtype()) {
    fail(fmt::format("expected scalar type {} but found {}", tensor::scalar_type_name(x.dtype()),
                     tensor::scalar_type_name(weight.dtype())));
  }
  if (x.dtype() != DType::kFloat32 && x.dtype() != DType::kFloat64) {
    unsupported_float_dtype(op, x.dtype());
  }
  static const char* const kAxes[] = {"depth", "height", "width"};
  bool op_ok = true;
  for (int i = 0; i < spatial; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (output_padding[u] >= stride[u] && output_padding[u] >= dilation[u]) op_ok = false;
  }
  if (!op_ok) {
    std::string msg = "output padding must be smaller than either stride or dilation, but got";
    const int first = 3 - std::max(spatial, 2);
    auto axis_list = [&](const char* what, const Ints& v) {
      for (int a = first; a < 3; ++a) {
        const int i = a - (3 - spatial);
        // A 1-d call reports a height of output_padding 0, stride 1, dilation 1.
        const std::int64_t unit = std::string(what) == "output_padding" ? 0 : 1;
        msg += fmt::format(" {}_{}: {}", what, kAxes[a],
                           i < 0 ? unit : v[static_cast<std::size_t>(i)]);
      }
    };
    axis_list("output_padding", output_padding);
    axis_list("stride", stride);
    axis_list("dilation", dilation);
    fail(msg);
  }
  Ints in_sp(is.begin() + 2, is.end());
  Ints k_sp(ws.begin() + 2, ws.end());
  Ints out_sp;
  bool too_small = false;
  for (int i = 0; i < spatial; ++i) {
    const auto u = static_cast<std::size_t>(i);
    out_sp.push_back((in_sp[u] - 1) * stride[u] - 2 * padding[u] + dilation[u] * (k_sp[u] - 1) +
                     output_padding[u] + 1);
    too_small = too_small || out_sp.back() < 1;
  }
  if (too_small) {
    fail(
        fmt::format("Given input size per channel: ({}). Calculated output size per channel: "
                    "({}). Output size is too small",
                    fmt::join(in_sp, " x "), fmt::join(out_sp, " x ")));
  }
  Ints out_sizes = {is[0], cout};
  out_sizes.insert(out_sizes.end(), out_sp.begin(), out_sp.end());
  Tensor out = Tensor::empty(out_sizes, x.dtype());
  Tensor xc = x.contiguous();
  Tensor w = weight.contiguous();
  if (out.numel() != 0) {
    if (x.dtype() == DType::kFloat64) {
      scatter<double>(xc, w, bias, out, to3(in_sp, 1), to3(k_sp, 1), to3(out_sp, 1), to3(stride, 1),
                      to3(padding, 0), to3(dilation, 1), groups);
    } else {
      scatter<float>(xc, w, bias, out, to3(in_sp, 1), to3(k_sp, 1), to3(out_sp, 1), to3(stride, 1),
                     to3(padding, 0), to3(dilation, 1), groups);
    }
  }
  return out;
}

void register_conv_transpose_ops(OperatorRegistry& r) {
  r.add({"aten::conv_transpose1d",
         8,
         {IValue(), ints({1}), ints({0}), ints({0}), IValue(1), ints({1})},
         conv_transpose<1>});
  r.add({"aten::conv_transpose2d.input",
         8,
         {IValue(), IValue(1), IValue(0), IValue(0), IValue(1), IValue(1)},
         conv_transpose<2>});
  r.add({"aten::conv_transpose3d.input",
         8,
         {IValue(), IValue(1), IValue(0), IValue(0), IValue(1), IValue(1)},
         conv_transpose<3>});
}

}  // namespace symbolite::ops::nn
