// aten::conv_transpose1d / conv_transpose2d.input / conv_transpose3d.input: transposed
// convolutions (nn.ConvTranspose*d): every input element adds input * weight[ic, oc, k] to
// output position i * stride - padding + k * dilation. Computed as PyTorch's own CPU kernels
// do without oneDNN: per image and group, the columns W^T X (a GEMM: every input position's
// contribution to each output channel and kernel tap, summed over the input channels), then
// col2im adds each column into the output position it lands on, over a bias-filled output.
// float32 and float64; stride, padding, output_padding, groups and dilation.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/cpu/gemm.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// The columns of a block of input rows at most this size: a 64 -> 32 channel, 2x2 stride-2
// layer over 64x64 pixels needs 2 MiB for all of them; a decoder's 512 -> 256, 4x4 over
// 64x64, 256 MiB.
constexpr std::int64_t kColumnBytes = std::int64_t{4} << 20;

// Spatial sizes padded to three (leading ones).
Ints to3(const Ints& v, std::int64_t fill) {
  Ints out(3 - v.size(), fill);
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

// The geometry, every spatial list padded to three (depth, height, width).
struct Transposed {
  Ints in, k, out, stride, pad, dil;
  std::int64_t groups = 1;
};

// Adds the columns of input rows [r0, r1) (depth x height rows of in[2] positions; `cols` has
// one row per output channel of the group and kernel tap, (r1 - r0) * in[2] long) into the
// output planes of the group's channels [c0, c1), `out` its first channel's plane.
template <typename T>
void col2im(const T* cols, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1,
            const Transposed& t, T* out) {
  const std::int64_t k_plane = t.k[0] * t.k[1] * t.k[2];
  const std::int64_t out_plane = t.out[0] * t.out[1] * t.out[2];
  const std::int64_t width = t.in[2], length = (r1 - r0) * width;
  for (std::int64_t oc = c0; oc < c1; ++oc) {
    T* plane = out + oc * out_plane;
    for (std::int64_t tap = 0; tap < k_plane; ++tap) {
      const std::int64_t kd = tap / (t.k[1] * t.k[2]), kh = tap / t.k[2] % t.k[1],
                         kw = tap % t.k[2];
      const T* row = cols + (oc * k_plane + tap) * length;
      // Input columns whose output column lies inside: ow = iw * sw - pw + kw * dw.
      const std::int64_t shift = kw * t.dil[2] - t.pad[2];
      std::int64_t lo = 0;
      while (lo < width && lo * t.stride[2] + shift < 0) ++lo;
      std::int64_t hi = width;
      while (hi > lo && (hi - 1) * t.stride[2] + shift >= t.out[2]) --hi;
      for (std::int64_t r = r0; r < r1; ++r, row += width) {
        const std::int64_t id = r / t.in[1], ih = r % t.in[1];
        const std::int64_t od = id * t.stride[0] - t.pad[0] + kd * t.dil[0];
        const std::int64_t oh = ih * t.stride[1] - t.pad[1] + kh * t.dil[1];
        if (od < 0 || od >= t.out[0] || oh < 0 || oh >= t.out[1]) continue;
        T* dst = plane + (od * t.out[1] + oh) * t.out[2] + shift;
        for (std::int64_t iw = lo; iw < hi; ++iw) dst[iw * t.stride[2]] += row[iw];
      }
    }
  }
}

template <typename T>
void gemm_col2im(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out,
                 const Transposed& t) {
  const std::int64_t n = x.sizes()[0], cin = x.sizes()[1];
  const std::int64_t cout_g = w.sizes()[1], cin_g = cin / t.groups, cout = cout_g * t.groups;
  const std::int64_t in_plane = t.in[0] * t.in[1] * t.in[2];
  const std::int64_t out_plane = t.out[0] * t.out[1] * t.out[2];
  const std::int64_t k_plane = t.k[0] * t.k[1] * t.k[2];
  const std::int64_t rows = cout_g * k_plane;  // columns' rows a group
  const std::int64_t in_rows = t.in[0] * t.in[1];
  const std::int64_t per_block = std::clamp<std::int64_t>(
      kColumnBytes / std::max<std::int64_t>(1, rows * t.in[2] * std::int64_t{sizeof(T)}), 1,
      std::max<std::int64_t>(1, in_rows));
  const T* xd = x.data<T>();
  const T* wd = w.data<T>();
  T* od = out.mutable_data<T>();
  Tensor b = bias != nullptr ? bias->contiguous() : Tensor();
  std::vector<T> cols(static_cast<std::size_t>(rows * per_block * t.in[2]));
  for (std::int64_t bn = 0; bn < n; ++bn) {
    T* image = od + bn * cout * out_plane;
    for (std::int64_t oc = 0; oc < cout; ++oc) {
      std::fill_n(image + oc * out_plane, out_plane, bias != nullptr ? b.data<T>()[oc] : T(0));
    }
    if (in_plane == 0) continue;  // no input positions: the bias alone
    for (std::int64_t g = 0; g < t.groups; ++g) {
      const T* weights = wd + g * cin_g * rows;  // (cin_g x rows), row-major
      const T* input = xd + (bn * cin + g * cin_g) * in_plane;
      T* planes = image + g * cout_g * out_plane;
      for (std::int64_t r0 = 0; r0 < in_rows; r0 += per_block) {
        const std::int64_t r1 = std::min(in_rows, r0 + per_block);
        const std::int64_t length = (r1 - r0) * t.in[2];
        gemm(true, false, rows, length, cin_g, T(1), weights, rows, input + r0 * t.in[2], in_plane,
             T(0), cols.data(), length);
        // Each output channel's plane written by one thread, in grains of 16K additions.
        const std::int64_t grain = std::max<std::int64_t>(1, 16384 / (k_plane * length));
        parallel_for(cout_g, grain, [&](std::int64_t c0, std::int64_t c1) {
          col2im(cols.data(), r0, r1, c0, c1, t, planes);
        });
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
    const Transposed t{to3(in_sp, 1),   to3(k_sp, 1),     to3(out_sp, 1), to3(stride, 1),
                       to3(padding, 0), to3(dilation, 1), groups};
    if (x.dtype() == DType::kFloat64) {
      gemm_col2im<double>(xc, w, bias, out, t);
    } else {
      gemm_col2im<float>(xc, w, bias, out, t);
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
