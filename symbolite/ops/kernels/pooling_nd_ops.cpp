// Max pooling with indices (aten::max_pool{1,2,3}d_with_indices, max_pool3d), avg_pool3d and
// max_unpool2d / max_unpool3d: one implementation over 1 to 3 spatial dimensions (fewer run
// as 3-d with leading sizes of one). Indices are PyTorch's: the flat position of the maximum
// within its input plane. float32 and float64.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/pooling_shape.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// Window geometry padded to three dimensions.
struct Window {
  Ints in, out, k, st, pad, dil;  // 3 entries each
  std::int64_t planes = 0;
  Ints out_sizes;  // the output's full sizes (batched or not, as the input)
};

Ints widen(const Ints& v, std::int64_t fill) {
  Ints out(3 - v.size(), fill);
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

Ints param(const Ints& v, int spatial, const char* op, const char* what, bool allow_empty,
           const Ints& fallback) {
  if (v.empty() && allow_empty) return fallback;
  if (v.size() == 1) return Ints(static_cast<std::size_t>(spatial), v[0]);
  if (static_cast<int>(v.size()) != spatial) {
    fail(fmt::format("{}: {} must be a single int, or a tuple of {} ints", op, what, spatial));
  }
  return v;
}

Window window(const Tensor& input, int spatial, const char* op, const Ints& kernel_arg,
              const Ints& stride_arg, const Ints& padding_arg, const Ints& dilation_arg,
              bool ceil_mode) {
  Ints kernel = param(kernel_arg, spatial, op, "kernel_size", false, {});
  Ints stride = param(stride_arg, spatial, op, "stride", true, kernel);
  Ints padding = param(padding_arg, spatial, op, "padding", false, {});
  Ints dilation = param(dilation_arg, spatial, op, "dilation", false, {});
  const std::int64_t d = input.dim();
  if (d != spatial + 1 && d != spatial + 2) {
    if (spatial == 1) {
      fail(
          fmt::format("Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 "
                      "'self' (while checking arguments for {})",
                      d, op));
    }
    fail(fmt::format("non-empty {}D or {}D (batch mode) tensor expected for input", spatial + 1,
                     spatial + 2));
  }
  for (std::int64_t i = 1; i < d; ++i) {
    if (input.sizes()[static_cast<std::size_t>(i)] == 0) {
      if (spatial == 1) {
        fail(
            fmt::format("{}: Expected input's non-batch dimensions to have positive length, "
                        "but input has a shape of {} and non-batch dimension {} has length zero!",
                        op, format_ints(input.sizes()), i));
      }
      fail(fmt::format("non-empty {}D or {}D (batch mode) tensor expected for input", spatial + 1,
                       spatial + 2));
    }
  }
  for (int i = 0; i < spatial; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (kernel[u] <= 0) fail(fmt::format("{}: kernel_size must be greater than zero", op));
    if (stride[u] <= 0) fail(fmt::format("{}: stride must be greater than zero", op));
    if (dilation[u] <= 0) fail(fmt::format("{}: dilation must be greater than zero", op));
  }
  Window w;
  Ints in(input.sizes().end() - spatial, input.sizes().end());
  Ints out;
  for (int i = 0; i < spatial; ++i) {
    const auto u = static_cast<std::size_t>(i);
    out.push_back(checked_pooling_output_length(in[u], kernel[u], padding[u], stride[u],
                                                dilation[u], ceil_mode));
  }
  for (auto o : out) {
    if (o < 1) {
      fail(fmt::format(
          "Given input size: ({}x{}). Calculated output size: ({}x{}). Output size "
          "is too small",
          input.sizes()[static_cast<std::size_t>(d - spatial - 1)], fmt::join(in, "x"),
          input.sizes()[static_cast<std::size_t>(d - spatial - 1)], fmt::join(out, "x")));
    }
  }
  w.in = widen(in, 1);
  w.out = widen(out, 1);
  w.k = widen(kernel, 1);
  w.st = widen(stride, 1);
  w.pad = widen(padding, 0);
  w.dil = widen(dilation, 1);
  w.planes = 1;
  for (std::int64_t i = 0; i < d - spatial; ++i)
    w.planes *= input.sizes()[static_cast<std::size_t>(i)];
  w.out_sizes = Ints(input.sizes().begin(), input.sizes().end() - spatial);
  w.out_sizes.insert(w.out_sizes.end(), out.begin(), out.end());
  return w;
}

void require_float(const char* op, const Tensor& t) {
  if (t.dtype() != DType::kFloat32 && t.dtype() != DType::kFloat64) {
    unsupported_float_dtype(op, t.dtype());
  }
}

template <typename T>
void max_planes(const Tensor& x, const Window& w, Tensor& out, Tensor& idx) {
  const std::int64_t in_plane = w.in[0] * w.in[1] * w.in[2];
  const std::int64_t out_plane = w.out[0] * w.out[1] * w.out[2];
  const T* src = x.data<T>();
  T* dst = out.mutable_data<T>();
  std::int64_t* id = idx.mutable_data<std::int64_t>();
  for (std::int64_t p = 0; p < w.planes; ++p) {
    const T* in = src + p * in_plane;
    std::int64_t at = p * out_plane;
    for (std::int64_t od = 0; od < w.out[0]; ++od) {
      std::int64_t d0 = od * w.st[0] - w.pad[0];
      const std::int64_t d1 = std::min(d0 + (w.k[0] - 1) * w.dil[0] + 1, w.in[0]);
      while (d0 < 0) d0 += w.dil[0];
      for (std::int64_t oh = 0; oh < w.out[1]; ++oh) {
        std::int64_t h0 = oh * w.st[1] - w.pad[1];
        const std::int64_t h1 = std::min(h0 + (w.k[1] - 1) * w.dil[1] + 1, w.in[1]);
        while (h0 < 0) h0 += w.dil[1];
        for (std::int64_t ow = 0; ow < w.out[2]; ++ow, ++at) {
          std::int64_t w0 = ow * w.st[2] - w.pad[2];
          const std::int64_t w1 = std::min(w0 + (w.k[2] - 1) * w.dil[2] + 1, w.in[2]);
          while (w0 < 0) w0 += w.dil[2];
          std::int64_t best_at = (d0 * w.in[1] + h0) * w.in[2] + w0;
          T best = -std::numeric_limits<T>::infinity();
          for (std::int64_t a = d0; a < d1; a += w.dil[0]) {
            for (std::int64_t b = h0; b < h1; b += w.dil[1]) {
              for (std::int64_t c = w0; c < w1; c += w.dil[2]) {
                const std::int64_t i = (a * w.in[1] + b) * w.in[2] + c;
                const T v = in[i];
                if (v > best || std::isnan(v)) {
                  best = v;
                  best_at = i;
                }
              }
            }
          }
          dst[at] = best;
          id[at] = best_at;
        }
      }
    }
  }
}

std::pair<Tensor, Tensor> max_pool(const Tensor& input, int spatial, const char* op,
                                   const Ints& kernel, const Ints& stride, const Ints& padding,
                                   const Ints& dilation, bool ceil_mode) {
  Window w = window(input, spatial, op, kernel, stride, padding, dilation, ceil_mode);
  require_float(op, input);
  Tensor x = input.contiguous();
  Tensor out = Tensor::uninitialized(w.out_sizes, x.dtype());
  Tensor idx = Tensor::uninitialized(w.out_sizes, DType::kInt64);
  if (out.numel() != 0) {
    if (x.dtype() == DType::kFloat64)
      max_planes<double>(x, w, out, idx);
    else
      max_planes<float>(x, w, out, idx);
  }
  return {out, idx};
}

// max_pool{1,2,3}d_with_indices(Tensor self, int[] kernel_size, int[] stride=[],
//   int[] padding=0, int[] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)
template <int Spatial, bool WithIndices>
void max_pool_nd(Stack& s) {
  const char* op = Spatial == 1 ? "max_pool1d" : Spatial == 2 ? "max_pool2d" : "max_pool3d";
  const bool ceil_mode = pop(s).to_bool();
  Ints dilation = int_list_arg(pop(s));
  Ints padding = int_list_arg(pop(s));
  Ints stride = int_list_arg(pop(s));
  Ints kernel = int_list_arg(pop(s));
  IValue input = pop(s);
  auto [out, idx] =
      max_pool(input.to_tensor(), Spatial, op, kernel, stride, padding, dilation, ceil_mode);
  s.emplace_back(std::move(out));
  if (WithIndices) s.emplace_back(std::move(idx));
}

template <typename T>
void avg_planes(const Tensor& x, const Window& w, bool count_include_pad,
                std::optional<std::int64_t> divisor, Tensor& out) {
  const std::int64_t in_plane = w.in[0] * w.in[1] * w.in[2];
  const T* src = x.data<T>();
  T* dst = out.mutable_data<T>();
  std::int64_t at = 0;
  for (std::int64_t p = 0; p < w.planes; ++p) {
    const T* in = src + p * in_plane;
    for (std::int64_t od = 0; od < w.out[0]; ++od) {
      for (std::int64_t oh = 0; oh < w.out[1]; ++oh) {
        for (std::int64_t ow = 0; ow < w.out[2]; ++ow, ++at) {
          std::int64_t lo[3] = {od * w.st[0] - w.pad[0], oh * w.st[1] - w.pad[1],
                                ow * w.st[2] - w.pad[2]};
          std::int64_t hi[3];
          std::int64_t pool_size = 1;
          for (int i = 0; i < 3; ++i) {
            hi[i] =
                std::min(lo[i] + w.k[static_cast<std::size_t>(i)],
                         w.in[static_cast<std::size_t>(i)] + w.pad[static_cast<std::size_t>(i)]);
            pool_size *= hi[i] - lo[i];
            lo[i] = std::max<std::int64_t>(lo[i], 0);
            hi[i] = std::min(hi[i], w.in[static_cast<std::size_t>(i)]);
          }
          if (lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]) {
            dst[at] = 0;
            continue;
          }
          T sum = 0;
          for (std::int64_t a = lo[0]; a < hi[0]; ++a) {
            for (std::int64_t b = lo[1]; b < hi[1]; ++b) {
              for (std::int64_t c = lo[2]; c < hi[2]; ++c)
                sum += in[(a * w.in[1] + b) * w.in[2] + c];
            }
          }
          const std::int64_t count = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
          const std::int64_t div = divisor ? *divisor : count_include_pad ? pool_size : count;
          dst[at] = sum / static_cast<T>(div);
        }
      }
    }
  }
}

// avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
//            bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
void avg_pool3d(Stack& s) {
  IValue divisor_arg = pop(s);
  const bool count_include_pad = pop(s).to_bool();
  const bool ceil_mode = pop(s).to_bool();
  Ints padding = int_list_arg(pop(s));
  Ints stride = int_list_arg(pop(s));
  Ints kernel = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  std::optional<std::int64_t> divisor;
  if (!divisor_arg.is_none()) divisor = divisor_arg.to_int();
  if (divisor && *divisor == 0) fail("divisor must be not zero");
  Window w = window(input, 3, "avg_pool3d", kernel, stride, padding, {1}, ceil_mode);
  require_float("aten::avg_pool3d", input);
  Tensor x = input.contiguous();
  Tensor out = Tensor::uninitialized(w.out_sizes, x.dtype());
  if (out.numel() != 0) {
    if (x.dtype() == DType::kFloat64)
      avg_planes<double>(x, w, count_include_pad, divisor, out);
    else
      avg_planes<float>(x, w, count_include_pad, divisor, out);
  }
  s.emplace_back(std::move(out));
}

// max_unpool: zeros of the output size with each input value at its index in its plane.
Tensor max_unpool(const Tensor& self, const Tensor& indices, const Ints& output_size, int spatial,
                  const char* op) {
  if (indices.dtype() != DType::kInt64) {
    fail(fmt::format("elements in indices should be type int64 but got: {}",
                     tensor::scalar_type_name(indices.dtype())));
  }
  if (static_cast<int>(output_size.size()) != spatial) {
    fail(
        fmt::format("There should be exactly {} elements (depth, height, width) in "
                    "output_size, but got {} elements.",
                    spatial, output_size.size()));
  }
  if (self.sizes() != indices.sizes()) {
    fail(
        fmt::format("Expected shape of indices to be same as that of the input tensor ({}) but "
                    "got indices tensor with shape: {}",
                    format_ints(self.sizes()), format_ints(indices.sizes())));
  }
  const std::int64_t d = self.dim();
  if (d != spatial + 1 && d != spatial + 2) {
    fail(
        fmt::format("Input to {}ing{}d should be a {}d or {}d Tensor, but got a tensor with {} "
                    "dimensions.",
                    "max_unpool", spatial, spatial + 1, spatial + 2, d));
  }
  require_float(op, self);
  Ints out_sizes(self.sizes().begin(), self.sizes().end() - spatial);
  std::int64_t planes = 1;
  for (auto v : out_sizes) planes *= v;
  out_sizes.insert(out_sizes.end(), output_size.begin(), output_size.end());
  std::int64_t out_plane = 1;
  for (auto v : output_size) out_plane *= v;
  const std::int64_t in_plane = planes == 0 ? 0 : self.numel() / planes;
  Tensor x = self.contiguous();
  Tensor idx = indices.contiguous();
  Tensor out = Tensor::empty(out_sizes, x.dtype());
  const std::int64_t* id = idx.numel() == 0 ? nullptr : idx.data<std::int64_t>();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.numel() == 0 ? nullptr : x.template data<T>();
    T* dst = out.numel() == 0 ? nullptr : out.template mutable_data<T>();
    for (std::int64_t p = 0; p < planes; ++p) {
      for (std::int64_t i = 0; i < in_plane; ++i) {
        const std::int64_t at = id[p * in_plane + i];
        if (at < 0 || at >= out_plane) {
          fail(fmt::format("Found an invalid max index: {} (output volumes are of size {}", at,
                           fmt::join(output_size, "x")));
        }
        dst[p * out_plane + at] = src[p * in_plane + i];
      }
    }
  };
  if (x.dtype() == DType::kFloat64)
    run(double{});
  else
    run(float{});
  return out;
}

// max_unpool2d(Tensor self, Tensor indices, int[2] output_size) -> Tensor
void max_unpool2d(Stack& s) {
  Ints output_size = int_list_arg(pop(s));
  IValue indices = pop(s);
  IValue self = pop(s);
  if (output_size.size() != 2) {
    fail(
        fmt::format("There should be exactly two elements (height, width) in output_size, but "
                    "got {} elements.",
                    output_size.size()));
  }
  s.emplace_back(max_unpool(self.to_tensor(), indices.to_tensor(), output_size, 2, "max_unpool2d"));
}

// max_unpool3d(Tensor self, Tensor indices, int[3] output_size, int[3] stride, int[3] padding)
void max_unpool3d(Stack& s) {
  drop(s, 2);  // stride and padding: PyTorch only checks them
  Ints output_size = int_list_arg(pop(s));
  IValue indices = pop(s);
  IValue self = pop(s);
  s.emplace_back(max_unpool(self.to_tensor(), indices.to_tensor(), output_size, 3, "max_unpool3d"));
}

}  // namespace

void register_pooling_nd_ops(OperatorRegistry& r) {
  r.add({"aten::max_pool1d_with_indices",
         6,
         {ints({}), ints({0}), ints({1}), IValue(false)},
         max_pool_nd<1, true>});
  r.add({"aten::max_pool2d_with_indices",
         6,
         {ints({}), IValue(0), IValue(1), IValue(false)},
         max_pool_nd<2, true>});
  r.add({"aten::max_pool3d_with_indices",
         6,
         {ints({}), IValue(0), IValue(1), IValue(false)},
         max_pool_nd<3, true>});
  r.add({"aten::max_pool3d",
         6,
         {ints({}), IValue(0), IValue(1), IValue(false)},
         max_pool_nd<3, false>});
  r.add({"aten::avg_pool3d",
         7,
         {ints({}), IValue(0), IValue(false), IValue(true), IValue()},
         avg_pool3d});
  r.add({"aten::max_unpool2d", 3, {}, max_unpool2d});
  r.add({"aten::max_unpool3d", 5, {}, max_unpool3d});
}

}  // namespace symbolite::ops::nn
