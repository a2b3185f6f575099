// 1-d pooling: aten::max_pool1d (its own kernel, float32/float64, as PyTorch's CPU fast
// path), aten::avg_pool1d and aten::adaptive_avg_pool1d (PyTorch runs these as their 2-d
// forms on `input.unsqueeze(-2)`, so do we: same numbers, same messages from the 2-d checks).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/pooling_shape.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/element_runs.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// out[i] = the maximum of in[i * K, i * K + K), a NaN propagating: windows of K side by side
// (kernel and stride K), taken in vectors (a load of K interleaved rows) where the compiler
// can: the taps in order, each replacing the maximum when greater or NaN, as window() below.
template <int K, typename T>
SYMBOLITE_ELEMENT_CLONES void max_windows(const T* in, T* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    T best = in[i * K];
    for (int j = 1; j < K; ++j) {
      const T v = in[i * K + j];
      best = (best < v || v != v) ? v : best;  // NOLINT(misc-redundant-expression): NaN test
    }
    out[i] = best;
  }
}

// A view of `t` with a size-1 dimension inserted before the last (unsqueeze(-2)).
Tensor unsqueeze_last_but_one(const Tensor& t) {
  Ints sizes = t.sizes();
  Ints strides = t.strides();
  auto at = sizes.end() - 1;
  std::int64_t stride = sizes.back() * strides.back();
  sizes.insert(at, 1);
  strides.insert(strides.end() - 1, stride);
  return Tensor::from_storage(t.storage(), t.dtype(), std::move(sizes), std::move(strides),
                              t.storage_offset());
}

// squeeze(-2) of a result that has a size-1 dimension there.
Tensor squeeze_last_but_one(const Tensor& t) {
  Ints sizes = t.sizes();
  Ints strides = t.strides();
  sizes.erase(sizes.end() - 2);
  strides.erase(strides.end() - 2);
  return Tensor::from_storage(t.storage(), t.dtype(), std::move(sizes), std::move(strides),
                              t.storage_offset());
}

// checkDimRange(name, self, 2, 4) and check1d of every list argument, as PyTorch's 1-d
// wrappers of 2-d pooling do.
void check_1d_wrapper(const char* op, const Tensor& self,
                      std::initializer_list<std::pair<const char*, const Ints*>> lists) {
  if (self.dim() < 2 || self.dim() >= 4) {
    fail(
        fmt::format("Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 "
                    "'self' (while checking arguments for {})",
                    self.dim(), op));
  }
  for (const auto& [name, list] : lists) {
    if (list->size() != 1) {
      fail(fmt::format("{}() argument '{}' should contain one int (got {})", op, name,
                       list->size()));
    }
  }
}

// aten::max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0,
//                  int[1] dilation=1, bool ceil_mode=False)
void max_pool1d(Stack& s) {
  bool ceil_mode = pop(s).to_bool();
  Ints dilation = int_list_arg(pop(s));
  Ints padding = int_list_arg(pop(s));
  Ints stride = int_list_arg(pop(s));
  Ints kernel = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  const Ints& is = input.sizes();
  bool valid = (input.dim() == 2 && is[0] != 0 && is[1] != 0) ||
               (input.dim() == 3 && is[1] != 0 && is[2] != 0);
  if (!valid) {
    fail(
        fmt::format("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                    "size for input, but got:{}",
                    format_ints(is)));
  }
  if (kernel.size() != 1) {
    fail(
        fmt::format("max_pool1d() kernel_size must be an int, list of ints or tuple of ints of "
                    "size 1 but got size {}",
                    kernel.size()));
  }
  if (stride.size() > 1) {
    fail(
        fmt::format("max_pool1d() stride must be None, an int, list of ints, or tuple of ints of "
                    "size 1 but got size {}",
                    stride.size()));
  }
  if (padding.size() != 1) {
    fail(
        fmt::format("max_pool1d() padding must be an int, list of ints, or tuple of ints of size "
                    "1 but got size {}",
                    padding.size()));
  }
  if (dilation.size() != 1) {
    fail(
        fmt::format("max_pool1d() dilation must be an int, list of ints or tuple of ints of size "
                    "1 but got size {}",
                    dilation.size()));
  }
  std::int64_t k = kernel[0];
  std::int64_t st = stride.empty() ? k : stride[0];
  std::int64_t pad = padding[0];
  std::int64_t dil = dilation[0];
  if (k <= 0)
    fail(fmt::format("max_pool1d() kernel_size must be greater than zero, but got {}", k));
  if (st <= 0) fail(fmt::format("max_pool1d() stride must be greater than zero, but got {}", st));
  if (pad < 0) fail(fmt::format("max_pool1d() padding must be non-negative, but got {}", pad));
  if (pad > k / 2) {
    fail(
        fmt::format("max_pool1d() padding should be at most half of kernel size, but got "
                    "padding={} and kernel_size={}",
                    pad, k));
  }
  if (dil <= 0)
    fail(fmt::format("max_pool1d() dilation must be greater than zero, but got {}", dil));
  std::int64_t width = is.back();
  std::int64_t out_width = pooling_output_length(width, k, pad, st, dil, ceil_mode);
  if (out_width < 0) fail(fmt::format("max_pool1d() Invalid computed output size: {}", out_width));

  Ints out_sizes = is;
  out_sizes.back() = out_width;
  Tensor x = input.contiguous();
  Tensor out = dispatch_floating(input.dtype(), "max_pool1d_impl", [&](auto tag) {
    using T = decltype(tag);
    Tensor result = Tensor::uninitialized(out_sizes, input.dtype());
    std::int64_t rows = x.numel() / width;
    const T* src = x.data<T>();
    T* dst = result.template mutable_data<T>();
    if (out_width <= 0) return result;
    // Outputs [inside_lo, inside_hi) read only columns inside the row: no bounds tests.
    const std::int64_t inside_lo = std::min(out_width, (pad + st - 1) / st);
    const std::int64_t last_tap = (k - 1) * dil - pad;  // ow * st + last_tap < width
    const std::int64_t inside_hi = std::max(
        inside_lo, std::min(out_width, width - last_tap <= 0 ? std::int64_t{0}
                                                             : (width - last_tap - 1) / st + 1));
    // Rows across threads; the taps of each window in order from -inf, a NaN propagating as in
    // PyTorch. std::max compiles to MAXSS: a comparison branch mispredicted on every other
    // tap of noise (5 ns a tap); a NaN is rare enough to branch on.
    parallel_for(rows, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, width)),
                 [&](std::int64_t first, std::int64_t last) {
                   for (std::int64_t r = first; r < last; ++r) {
                     const T* in = src + r * width;
                     T* o = dst + r * out_width;
                     auto window = [&](std::int64_t ow, bool checked) {
                       T best = -std::numeric_limits<T>::infinity();
                       for (std::int64_t j = 0; j < k; ++j) {
                         const std::int64_t iw = ow * st - pad + j * dil;
                         if (checked && (iw < 0 || iw >= width)) continue;
                         const T v = in[iw];
                         best = std::isnan(v) ? v : std::max(best, v);
                       }
                       o[ow] = best;
                     };
                     for (std::int64_t ow = 0; ow < inside_lo; ++ow) window(ow, true);
                     const T* inside = in + inside_lo * st - pad;
                     const std::int64_t count = inside_hi - inside_lo;
                     if (dil == 1 && st == k && k >= 2 && k <= 4) {
                       // Windows side by side (max_pool1d(x, 2) .. (x, 4)): whole vectors.
                       if (k == 2) max_windows<2>(inside, o + inside_lo, count);
                       if (k == 3) max_windows<3>(inside, o + inside_lo, count);
                       if (k == 4) max_windows<4>(inside, o + inside_lo, count);
                     } else {
                       for (std::int64_t ow = inside_lo; ow < inside_hi; ++ow) window(ow, false);
                     }
                     for (std::int64_t ow = inside_hi; ow < out_width; ++ow) window(ow, true);
                   }
                 });
    return result;
  });
  s.emplace_back(std::move(out));
}

// aten::avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0,
//                  bool ceil_mode=False, bool count_include_pad=True)
void avg_pool1d(Stack& s) {
  bool count_include_pad = pop(s).to_bool();
  bool ceil_mode = pop(s).to_bool();
  Ints padding = int_list_arg(pop(s));
  Ints stride = int_list_arg(pop(s));
  Ints kernel = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  if (stride.empty()) stride = kernel;
  check_1d_wrapper("avg_pool1d", input,
                   {{"kernel_size", &kernel}, {"stride", &stride}, {"padding", &padding}});
  IValue out = run_op("aten::avg_pool2d",
                      {unsqueeze_last_but_one(input), ints({1, kernel[0]}), ints({1, stride[0]}),
                       ints({0, padding[0]}), ceil_mode, count_include_pad, IValue()});
  s.emplace_back(squeeze_last_but_one(out.to_tensor()));
}

// aten::adaptive_avg_pool1d(Tensor self, int[1] output_size)
void adaptive_avg_pool1d(Stack& s) {
  Ints output_size = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  check_1d_wrapper("adaptive_avg_pool1d", input, {{"output_size", &output_size}});
  IValue out = run_op("aten::adaptive_avg_pool2d",
                      {unsqueeze_last_but_one(input), ints({1, output_size[0]})});
  s.emplace_back(squeeze_last_but_one(out.to_tensor()));
}

}  // namespace

void register_pooling1d_ops(OperatorRegistry& r) {
  r.add({"aten::max_pool1d", 6, {ints({}), ints({0}), ints({1}), IValue(false)}, max_pool1d});
  r.add({"aten::avg_pool1d", 6, {ints({}), ints({0}), IValue(false), IValue(true)}, avg_pool1d});
  r.add({"aten::adaptive_avg_pool1d", 2, {}, adaptive_avg_pool1d});
}

}  // namespace symbolite::ops::nn
