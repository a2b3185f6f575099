// 2-d pooling, float32 and float64: aten::max_pool2d, aten::avg_pool2d,
// aten::adaptive_avg_pool2d, on 3-d (C, H, W) or 4-d (N, C, H, W) inputs. Shapes, checks and
// messages follow PyTorch 1.13 (pooling_output_shape, pool2d_shape_check); averages sum and
// divide as its CPU kernels do (avg_pool2d in the element type).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/contiguous_sum.h"
#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/pooling_shape.h"
#include "symbolite/ops/common/tap_range.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/avg_pool_plane.h"
#include "symbolite/ops/cpu/max_pool_plane.h"
#include "symbolite/ops/cpu/running_max.h"
#include "symbolite/ops/cpu/strided_copy.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// Size of dimension `dim` (negative counts from the end), with PyTorch's IndexError.
std::int64_t size_at(const Tensor& t, std::int64_t dim) {
  std::int64_t n = t.dim();
  if (n == 0) {
    throw OpError("IndexError",
                  fmt::format("dimension specified as {} but tensor has no dimensions", dim));
  }
  if (dim < -n || dim >= n) {
    throw OpError("IndexError",
                  fmt::format("Dimension out of range (expected to be in range of [{}, {}], but "
                              "got {})",
                              -n, n - 1, dim));
  }
  return t.sizes()[static_cast<std::size_t>(dim < 0 ? dim + n : dim)];
}

struct Pool {
  std::int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  std::int64_t planes;  // N*C
  std::int64_t channels, h, w, oh, ow;
};

void pool2d_shape_check(const Tensor& input, const Pool& p) {
  if (p.kw <= 0 || p.kh <= 0) {
    fail(fmt::format("kernel size should be greater than zero, but got kH: {} kW: {}", p.kh, p.kw));
  }
  if (p.sw <= 0 || p.sh <= 0) {
    fail(fmt::format("stride should be greater than zero, but got dH: {} dW: {}", p.sh, p.sw));
  }
  if (p.dh <= 0 || p.dw <= 0) {
    fail(fmt::format("dilation should be greater than zero, but got dilationH: {} dilationW: {}",
                     p.dh, p.dw));
  }
  const Ints& s = input.sizes();
  std::int64_t ndim = input.dim();
  bool valid_dims = ndim >= 3 && s[1] != 0 && s[2] != 0;
  if (!((ndim == 3 && s[0] != 0 && valid_dims) || (ndim == 4 && valid_dims && s[3] != 0))) {
    fail(
        fmt::format("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                    "input, but got:{}",
                    format_ints(s)));
  }
  if (p.kw / 2 < p.pw || p.kh / 2 < p.ph) {
    fail(
        fmt::format("pad should be smaller than or equal to half of kernel size, but got padW = "
                    "{}, padH = {}, kW = {}, kH = {}",
                    p.pw, p.ph, p.kw, p.kh));
  }
  if (p.ow < 1 || p.oh < 1) {
    fail(
        fmt::format("Given input size: ({}x{}x{}). Calculated output size: ({}x{}x{}). Output "
                    "size is too small",
                    p.channels, p.h, p.w, p.channels, p.oh, p.ow));
  }
}

Ints output_sizes(const Tensor& input, std::int64_t oh, std::int64_t ow) {
  Ints sizes(input.sizes().begin(), input.sizes().end() - 2);
  sizes.push_back(oh);
  sizes.push_back(ow);
  return sizes;
}

// kernel_size, stride, padding read as PyTorch's pooling meta functions do. `op` names the
// operator in the list-length messages; max_pool2d's padding message differs from
// avg_pool2d's by a word, as in PyTorch.
Pool read_window(const char* op, const Ints& kernel, const Ints& stride, const Ints& padding,
                 const char* padding_msg) {
  if (kernel.size() != 1 && kernel.size() != 2) {
    fail(fmt::format("{}: kernel_size must either be a single int, or a tuple of two ints", op));
  }
  Pool p{};
  p.kh = kernel[0];
  p.kw = kernel.size() == 1 ? p.kh : kernel[1];
  if (stride.size() > 2) {
    fail(
        fmt::format("{}: stride must either be omitted, a single int, or a tuple of two ints", op));
  }
  p.sh = stride.empty() ? p.kh : stride[0];
  p.sw = stride.empty() ? p.kw : stride.size() == 1 ? p.sh : stride[1];
  if (padding.size() != 1 && padding.size() != 2) fail(fmt::format("{}: {}", op, padding_msg));
  p.ph = padding[0];
  p.pw = padding.size() == 1 ? p.ph : padding[1];
  p.dh = 1;
  p.dw = 1;
  return p;
}

// One plane's geometry, for the plane kernels (ops/cpu/pool_plane.h).
PoolPlane plane_of(const Pool& p) {
  return {p.h, p.w, p.oh, p.ow, p.kh, p.kw, p.sh, p.sw, p.ph, p.pw};
}

// Calls pool(in, o) for every H x W plane `in` of contiguous x and its OH x OW plane `o` of
// out. Planes are independent: split across threads (the same result at any count).
template <typename T, typename PlaneFn>
void for_each_plane(const Tensor& x, const Pool& p, Tensor& out, PlaneFn pool) {
  std::int64_t planes = x.numel() / (p.h * p.w);
  const T* src = x.data<T>();
  T* dst = out.mutable_data<T>();
  parallel_for(planes, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, p.h * p.w)),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t plane = first; plane < last; ++plane) {
                   pool(src + plane * p.h * p.w, dst + plane * p.oh * p.ow);
                 }
               });
}

// Max pooling of every H x W plane of contiguous x into out.
template <typename T>
void max_pool2d_planes(const Tensor& x, const Pool& p, Tensor& out) {
  if constexpr (std::is_same_v<T, float>) {
    // Float32 at column strides 1 and 2 without dilation: in two passes (max_pool_plane.h).
    const PoolPlane plane = plane_of(p);
    if (p.dh == 1 && p.dw == 1 && max_pool_plane_takes(plane)) {
      for_each_plane<float>(x, p, out, [&](const float* in, float* o) {
        thread_local std::vector<float> scratch;
        max_pool_plane_f32(in, o, plane, scratch);
      });
      return;
    }
  }
  for_each_plane<T>(x, p, out, [&](const T* in, T* o) {
    // Tap by tap over whole output rows (a vectorizable select per tap) instead of window by
    // window; NaN propagates as in PyTorch's `val > max || isnan(val)`.
    thread_local std::vector<float> scratch;
    if constexpr (std::is_same_v<T, float>) scratch.resize(static_cast<std::size_t>(p.ow));
    for (std::int64_t oh = 0; oh < p.oh; ++oh) {
      T* orow = o + oh * p.ow;
      std::fill_n(orow, p.ow, -std::numeric_limits<T>::infinity());
      for (std::int64_t i = 0; i < p.kh; ++i) {
        std::int64_t ih = oh * p.sh - p.ph + i * p.dh;
        if (ih < 0 || ih >= p.h) continue;
        const T* row = in + ih * p.w;
        for (std::int64_t j = 0; j < p.kw; ++j) {
          std::int64_t off = j * p.dw - p.pw;  // input column of output column 0
          const auto [lo, hi] = tap_range(off, p.sw, p.w, p.ow);
          if constexpr (std::is_same_v<T, float>) {
            // float32: strided taps gathered into a row first (ops/cpu/strided_copy.h), then
            // the select in vectors (ops/cpu/running_max.h).
            if (hi <= lo) continue;
            const float* taps = row + lo * p.sw + off;
            if (p.sw != 1) {
              strided_copy_f32(taps, p.sw, scratch.data(), hi - lo);
              taps = scratch.data();
            }
            running_max_f32(taps, orow + lo, hi - lo);
          } else {
            for (std::int64_t ow = lo; ow < hi; ++ow) {
              T v = row[ow * p.sw + off];
              orow[ow] = (v > orow[ow] || std::isnan(v)) ? v : orow[ow];
            }
          }
        }
      }
    }
  });
}

// aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//                  int[2] dilation=1, bool ceil_mode=False)
void max_pool2d(Stack& s) {
  bool ceil_mode = pop(s).to_bool();
  Ints dilation = int_list_arg(pop(s));
  Ints padding = int_list_arg(pop(s));
  Ints stride = int_list_arg(pop(s));
  Ints kernel = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  Pool p = read_window("max_pool2d", kernel, stride, padding,
                       "padding must be either be a single int, or a tuple of two ints");
  if (dilation.size() != 1 && dilation.size() != 2) {
    fail("max_pool2d: dilation must be either a single int, or a tuple of two ints");
  }
  p.dh = dilation[0];
  p.dw = dilation.size() == 1 ? p.dh : dilation[1];
  if (input.dim() != 3 && input.dim() != 4) {
    fail("non-empty 3D or 4D (batch mode) tensor expected for input");
  }
  p.channels = size_at(input, -3);
  p.h = size_at(input, -2);
  p.w = size_at(input, -1);
  p.oh = checked_pooling_output_length(p.h, p.kh, p.ph, p.sh, p.dh, ceil_mode);
  p.ow = checked_pooling_output_length(p.w, p.kw, p.pw, p.sw, p.dw, ceil_mode);
  pool2d_shape_check(input, p);
  require_floating("aten::max_pool2d", "max_pool2d", input.dtype());

  Tensor x = input.contiguous();
  Tensor out = Tensor::uninitialized(output_sizes(input, p.oh, p.ow), x.dtype());
  dispatch_floating(x.dtype(), "max_pool2d",
                    [&](auto tag) { max_pool2d_planes<decltype(tag)>(x, p, out); });
  s.emplace_back(std::move(out));
}

// Each output's divisor (oh x ow), as PyTorch's CPU kernel picks it: the override; or the
// window's size counting padding (clipped where it would reach past the padding, which ceil
// mode can make it); or the taps inside the input. 1 for a window that holds no input, whose
// average PyTorch leaves 0 (0 / 1 gives the same).
template <typename T>
std::vector<T> avg_pool_divisors(const Pool& p, bool count_include_pad,
                                 std::optional<std::int64_t> divisor) {
  std::vector<T> divisors(static_cast<std::size_t>(p.oh * p.ow));
  for (std::int64_t oh = 0; oh < p.oh; ++oh) {
    const std::int64_t h0 = oh * p.sh - p.ph;
    const std::int64_t h1 = std::min(h0 + p.kh, p.h + p.ph);
    const std::int64_t rows = std::min(h1, p.h) - std::max<std::int64_t>(h0, 0);
    for (std::int64_t ow = 0; ow < p.ow; ++ow) {
      const std::int64_t w0 = ow * p.sw - p.pw;
      const std::int64_t w1 = std::min(w0 + p.kw, p.w + p.pw);
      const std::int64_t columns = std::min(w1, p.w) - std::max<std::int64_t>(w0, 0);
      const std::int64_t div = rows <= 0 || columns <= 0 ? 1
                               : divisor                 ? *divisor
                               : count_include_pad       ? (h1 - h0) * (w1 - w0)
                                                         : rows * columns;
      divisors[static_cast<std::size_t>(oh * p.ow + ow)] = static_cast<T>(div);
    }
  }
  return divisors;
}

// Average pooling of every H x W plane of contiguous x into out, summing in T as PyTorch's
// CPU kernel does. Float32 at column strides 1 and 2 in vectors of 16 outputs
// (ops/cpu/avg_pool_plane.h); otherwise tap by tap over whole output rows rather than window
// by window. Either way each output adds its taps in window order (rows, then columns, from
// a zero start) and ends as PyTorch's `0 + sum / divisor`, so the results are its bits.
template <typename T>
void avg_pool2d_planes(const Tensor& x, const Pool& p, bool count_include_pad,
                       std::optional<std::int64_t> divisor, Tensor& out) {
  const std::vector<T> divisors = avg_pool_divisors<T>(p, count_include_pad, divisor);
  if constexpr (std::is_same_v<T, float>) {
    const PoolPlane plane = plane_of(p);
    if (avg_pool_plane_takes(plane)) {
      for_each_plane<float>(x, p, out, [&](const float* in, float* o) {
        thread_local std::vector<float> scratch;
        avg_pool_plane_f32(in, o, plane, divisors.data(), scratch);
      });
      return;
    }
  }
  for_each_plane<T>(x, p, out, [&](const T* in, T* o) {
    for (std::int64_t oh = 0; oh < p.oh; ++oh) {
      const std::int64_t h0 = oh * p.sh - p.ph;
      const std::int64_t first_row = std::max<std::int64_t>(h0, 0);
      const std::int64_t end_row = std::min(h0 + p.kh, p.h);
      T* orow = o + oh * p.ow;
      std::fill_n(orow, p.ow, T(0));
      for (std::int64_t ih = first_row; ih < end_row; ++ih) {
        const T* row = in + ih * p.w;
        for (std::int64_t j = 0; j < p.kw; ++j) {
          const std::int64_t off = j - p.pw;  // input column of output column 0's tap j
          const auto [lo, hi] = tap_range(off, p.sw, p.w, p.ow);
          if (p.sw == 1) {  // contiguous taps: the loop vectorizes
            for (std::int64_t ow = lo; ow < hi; ++ow) orow[ow] += row[ow + off];
          } else {
            for (std::int64_t ow = lo; ow < hi; ++ow) orow[ow] += row[ow * p.sw + off];
          }
        }
      }
      const T* row_divisors = divisors.data() + oh * p.ow;
      for (std::int64_t ow = 0; ow < p.ow; ++ow) orow[ow] = T(0) + orow[ow] / row_divisors[ow];
    }
  });
}

// aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//                  bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
void avg_pool2d(Stack& s) {
  IValue divisor_arg = pop(s);
  bool count_include_pad = pop(s).to_bool();
  bool ceil_mode = pop(s).to_bool();
  Ints padding = int_list_arg(pop(s));
  Ints stride = int_list_arg(pop(s));
  Ints kernel = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  Pool p = read_window("avg_pool2d", kernel, stride, padding,
                       "padding must either be a single int, or a tuple of two ints");
  std::optional<std::int64_t> divisor;
  if (!divisor_arg.is_none()) divisor = divisor_arg.to_int();
  if (divisor && *divisor == 0) fail("divisor must be not zero");
  p.channels = size_at(input, -3);
  p.h = size_at(input, -2);
  p.w = size_at(input, -1);
  p.oh = checked_pooling_output_length(p.h, p.kh, p.ph, p.sh, 1, ceil_mode);
  p.ow = checked_pooling_output_length(p.w, p.kw, p.pw, p.sw, 1, ceil_mode);
  pool2d_shape_check(input, p);
  // PyTorch also averages integer tensors; symbolite does floating point only.
  if (input.dtype() != DType::kFloat32 && input.dtype() != DType::kFloat64) {
    unsupported_float_dtype("aten::avg_pool2d", input.dtype());
  }

  Tensor x = input.contiguous();
  Tensor out = Tensor::uninitialized(output_sizes(input, p.oh, p.ow), x.dtype());
  dispatch_floating(x.dtype(), "avg_pool2d", [&](auto tag) {
    avg_pool2d_planes<decltype(tag)>(x, p, count_include_pad, divisor, out);
  });
  s.emplace_back(std::move(out));
}

// Adaptive average pooling of every plane of contiguous x into out (not empty), summing
// in double. `global` (output 1 x 1) averages whole planes, as PyTorch's mean over (-1, -2).
template <typename T>
void adaptive_avg_pool2d_planes(const Tensor& x, bool global, Tensor& out) {
  std::int64_t h = x.sizes()[x.sizes().size() - 2];
  std::int64_t w = x.sizes().back();
  std::int64_t oh = out.sizes()[out.sizes().size() - 2];
  std::int64_t ow = out.sizes().back();
  std::int64_t planes = out.numel() / (oh * ow);
  const T* src = x.numel() == 0 ? nullptr : x.data<T>();
  T* dst = out.mutable_data<T>();
  // Planes are independent: split across threads (the same result at any count).
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, h * w));
  if (global && h * w > 0) {
    // A whole plane each (every classifier head, every squeeze-and-excitation block): no
    // window bounds to work out per output (four integer divisions took a third of the time).
    const double count = static_cast<double>(h * w);
    parallel_for(planes, grain, [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t plane = first; plane < last; ++plane) {
        dst[plane] = static_cast<T>(contiguous_sum(src + plane * h * w, h * w) / count);
      }
    });
    return;
  }
  // Each output row's and column's window bounds, once for every plane.
  Ints rows_from(static_cast<std::size_t>(oh)), rows_to(static_cast<std::size_t>(oh));
  Ints cols_from(static_cast<std::size_t>(ow)), cols_to(static_cast<std::size_t>(ow));
  for (std::int64_t i = 0; i < oh; ++i) {
    rows_from[static_cast<std::size_t>(i)] = div_floor(i * h, oh);
    rows_to[static_cast<std::size_t>(i)] = -div_floor(-(i + 1) * h, oh);
  }
  for (std::int64_t j = 0; j < ow; ++j) {
    cols_from[static_cast<std::size_t>(j)] = div_floor(j * w, ow);
    cols_to[static_cast<std::size_t>(j)] = -div_floor(-(j + 1) * w, ow);
  }
  parallel_for(planes, grain, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t plane = first; plane < last; ++plane) {
      const T* in = src == nullptr ? nullptr : src + plane * h * w;
      for (std::int64_t i = 0; i < oh; ++i) {
        const std::int64_t h0 = rows_from[static_cast<std::size_t>(i)];
        const std::int64_t h1 = rows_to[static_cast<std::size_t>(i)];
        for (std::int64_t j = 0; j < ow; ++j) {
          const std::int64_t w0 = cols_from[static_cast<std::size_t>(j)];
          const std::int64_t w1 = cols_to[static_cast<std::size_t>(j)];
          double sum = 0;
          if (w0 == 0 && w1 == w) {
            sum = contiguous_sum(in + h0 * w, (h1 - h0) * w);  // whole rows: one run
          } else {
            for (std::int64_t ih = h0; ih < h1; ++ih) {
              for (std::int64_t iw = w0; iw < w1; ++iw) sum += in[ih * w + iw];
            }
          }
          std::int64_t count = (h1 - h0) * (w1 - w0);
          dst[(plane * oh + i) * ow + j] = count == 0
                                               ? std::numeric_limits<T>::quiet_NaN()
                                               : static_cast<T>(sum / static_cast<double>(count));
        }
      }
    }
  });
}

// aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size)
void adaptive_avg_pool2d(Stack& s) {
  Ints output_size = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  if (output_size.size() != 2) fail("adaptive_avg_pool2d: output_size must be 2");
  if (output_size[0] < 0 || output_size[1] < 0) {
    fail(
        fmt::format("adaptive_avg_pool2d: elements of output_size must be greater than or equal "
                    "to 0 but received {{{}, {}}}",
                    output_size[0], output_size[1]));
  }
  std::int64_t ndim = input.dim();
  bool global = output_size[0] == 1 && output_size[1] == 1;  // PyTorch: mean over (-1, -2)
  if (global) {
    size_at(input, -1);
    size_at(input, -2);
  } else {
    if (ndim != 3 && ndim != 4) {
      fail(fmt::format("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {}",
                       format_ints(input.sizes())));
    }
    for (std::int64_t i : {-2, -1}) {
      if (size_at(input, i) <= 0) {
        fail(
            fmt::format("adaptive_avg_pool2d(): Expected input to have non-zero size for "
                        "non-batch dimensions, but input has sizes {} with dimension {} being "
                        "empty",
                        format_ints(input.sizes()), i + ndim));
      }
    }
  }
  if (global) {
    // PyTorch's mean() refuses integers with its own message; symbolite refuses them too.
    if (input.dtype() != DType::kFloat32 && input.dtype() != DType::kFloat64) {
      unsupported_float_dtype("aten::adaptive_avg_pool2d", input.dtype());
    }
  } else {
    require_floating("aten::adaptive_avg_pool2d", "adaptive_avg_pool2d", input.dtype());
  }
  std::int64_t oh = output_size[0];
  std::int64_t ow = output_size[1];
  Tensor x = input.contiguous();
  Tensor out = Tensor::uninitialized(output_sizes(input, oh, ow), x.dtype());
  if (out.numel() != 0) {
    dispatch_floating(x.dtype(), "adaptive_avg_pool2d",
                      [&](auto tag) { adaptive_avg_pool2d_planes<decltype(tag)>(x, global, out); });
  }
  s.emplace_back(std::move(out));
}

}  // namespace

void register_pooling_ops(OperatorRegistry& r) {
  r.add({"aten::max_pool2d", 6, {ints({}), ints({0, 0}), ints({1, 1}), IValue(false)}, max_pool2d});
  r.add({"aten::avg_pool2d",
         7,
         {ints({}), ints({0, 0}), IValue(false), IValue(true), IValue()},
         avg_pool2d});
  r.add({"aten::adaptive_avg_pool2d", 2, {}, adaptive_avg_pool2d});
}

}  // namespace symbolite::ops::nn
