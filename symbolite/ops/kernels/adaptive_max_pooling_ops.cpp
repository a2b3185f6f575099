// Adaptive max pooling: aten::adaptive_max_pool2d, adaptive_max_pool3d and
// aten::adaptive_max_pool1d (the 2-d
// op on `input.unsqueeze(-2)`, as PyTorch runs it), float32 and float64. Both return the
// maxima and their int64 indices (flat within each input plane), with PyTorch 1.13's
// windows (start = floor(i * in / out), end = ceil((i + 1) * in / out)) and NaN handling.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

std::int64_t window_start(std::int64_t i, std::int64_t out, std::int64_t in) {
  return (i * in) / out;
}
std::int64_t window_end(std::int64_t i, std::int64_t out, std::int64_t in) {
  return ((i + 1) * in + out - 1) / out;
}

std::pair<Tensor, Tensor> adaptive_max_pool2d_impl(const Tensor& input, const Ints& output_size) {
  std::int64_t ndim = input.dim();
  if (ndim != 3 && ndim != 4) {
    fail(fmt::format("adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {}",
                     format_ints(input.sizes())));
  }
  for (std::int64_t i = 1; i < ndim; ++i) {
    if (input.sizes()[static_cast<std::size_t>(i)] <= 0) {
      fail(
          fmt::format("adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                      "dimensions, but input has sizes {} with dimension {} being empty",
                      format_ints(input.sizes()), i));
    }
  }
  if (output_size.size() != 2) {
    fail("adaptive_max_pool2d(): internal error: output_size.size() must be 2");
  }
  Ints out_sizes(input.sizes().begin(), input.sizes().end() - 2);
  out_sizes.push_back(output_size[0]);
  out_sizes.push_back(output_size[1]);
  for (std::int64_t d : out_sizes) {
    if (d < 0) {
      fail(fmt::format("Trying to create tensor with negative dimension {}: {}", d,
                       format_ints(out_sizes)));
    }
  }
  std::int64_t h = input.sizes()[static_cast<std::size_t>(ndim - 2)];
  std::int64_t w = input.sizes().back();
  std::int64_t oh = output_size[0];
  std::int64_t ow = output_size[1];
  Tensor x = input.contiguous();
  Tensor indices = Tensor::uninitialized(out_sizes, DType::kInt64);
  Tensor out = dispatch_floating(input.dtype(), "adaptive_max_pool2d", [&](auto tag) {
    using T = decltype(tag);
    Tensor result = Tensor::uninitialized(out_sizes, input.dtype());
    if (result.numel() == 0) return result;
    std::int64_t planes = x.numel() / (h * w);
    const T* src = x.data<T>();
    T* dst = result.template mutable_data<T>();
    std::int64_t* idx = indices.mutable_data<std::int64_t>();
    for (std::int64_t plane = 0; plane < planes; ++plane) {
      const T* in = src + plane * h * w;
      for (std::int64_t i = 0; i < oh; ++i) {
        std::int64_t h0 = window_start(i, oh, h), h1 = window_end(i, oh, h);
        for (std::int64_t j = 0; j < ow; ++j) {
          std::int64_t w0 = window_start(j, ow, w), w1 = window_end(j, ow, w);
          std::int64_t best_index = h0 * w + w0;
          T best = -std::numeric_limits<T>::infinity();
          for (std::int64_t ih = h0; ih < h1; ++ih) {
            for (std::int64_t iw = w0; iw < w1; ++iw) {
              T v = in[ih * w + iw];
              if (v > best || std::isnan(v)) {
                best = v;
                best_index = ih * w + iw;
              }
            }
          }
          std::int64_t o = (plane * oh + i) * ow + j;
          dst[o] = best;
          idx[o] = best_index;
        }
      }
    }
    return result;
  });
  return {out, indices};
}

// aten::adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)
void adaptive_max_pool2d(Stack& s) {
  Ints output_size = int_list_arg(pop(s));
  IValue input = pop(s);
  auto [out, indices] = adaptive_max_pool2d_impl(input.to_tensor(), output_size);
  s.emplace_back(std::move(out));
  s.emplace_back(std::move(indices));
}

// The view of `t` with `sizes` (same element order: inserting or removing a size-1 dim).
Tensor reshape_view(const Tensor& t, Ints sizes) {
  Tensor c = t.contiguous();
  auto strides = tensor::contiguous_strides(sizes);
  return Tensor::from_storage(c.storage(), c.dtype(), std::move(sizes), std::move(strides),
                              c.storage_offset());
}

// aten::adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)
void adaptive_max_pool1d(Stack& s) {
  Ints output_size = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  if (input.dim() < 2 || input.dim() >= 4) {
    fail(
        fmt::format("Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 "
                    "'self' (while checking arguments for adaptive_max_pool1d)",
                    input.dim()));
  }
  if (output_size.size() != 1) {
    fail(fmt::format("adaptive_max_pool1d() argument 'output_size' should contain one int (got {})",
                     output_size.size()));
  }
  Ints sizes = input.sizes();
  sizes.insert(sizes.end() - 1, 1);
  auto [out, indices] = adaptive_max_pool2d_impl(reshape_view(input, sizes), {1, output_size[0]});
  Ints out_sizes = out.sizes();
  out_sizes.erase(out_sizes.end() - 2);
  s.emplace_back(reshape_view(out, out_sizes));
  s.emplace_back(reshape_view(indices, out_sizes));
}

// aten::adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor): the same
// over depth, height and width; indices flat within each (D, H, W) input volume.
void adaptive_max_pool3d(Stack& s) {
  Ints output_size = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  const std::int64_t ndim = input.dim();
  if (ndim != 4 && ndim != 5) {
    fail(fmt::format("adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {}",
                     format_ints(input.sizes())));
  }
  for (std::int64_t i = 1; i < ndim; ++i) {
    if (input.sizes()[static_cast<std::size_t>(i)] <= 0) {
      fail(
          fmt::format("adaptive_max_pool3d(): Expected input to have non-zero size for non-batch "
                      "dimensions, but input has sizes {} with dimension {} being empty",
                      format_ints(input.sizes()), i));
    }
  }
  if (output_size.size() != 3) {
    fail("adaptive_max_pool3d(): internal error: output_size.size() must be 3");
  }
  Ints out_sizes(input.sizes().begin(), input.sizes().end() - 3);
  out_sizes.insert(out_sizes.end(), output_size.begin(), output_size.end());
  for (std::int64_t d : out_sizes) {
    if (d < 0) {
      fail(fmt::format("Trying to create tensor with negative dimension {}: {}", d,
                       format_ints(out_sizes)));
    }
  }
  const std::int64_t dd = input.sizes()[static_cast<std::size_t>(ndim - 3)];
  const std::int64_t h = input.sizes()[static_cast<std::size_t>(ndim - 2)];
  const std::int64_t w = input.sizes().back();
  const std::int64_t od = output_size[0], oh = output_size[1], ow = output_size[2];
  Tensor x = input.contiguous();
  Tensor indices = Tensor::uninitialized(out_sizes, DType::kInt64);
  Tensor out = dispatch_floating(input.dtype(), "adaptive_max_pool3d", [&](auto tag) {
    using T = decltype(tag);
    Tensor result = Tensor::uninitialized(out_sizes, input.dtype());
    if (result.numel() == 0) return result;
    const std::int64_t planes = x.numel() / (dd * h * w);
    const T* src = x.data<T>();
    T* dst = result.template mutable_data<T>();
    std::int64_t* idx = indices.mutable_data<std::int64_t>();
    std::int64_t o = 0;
    for (std::int64_t plane = 0; plane < planes; ++plane) {
      const T* in = src + plane * dd * h * w;
      for (std::int64_t a = 0; a < od; ++a) {
        const std::int64_t d0 = window_start(a, od, dd), d1 = window_end(a, od, dd);
        for (std::int64_t i = 0; i < oh; ++i) {
          const std::int64_t h0 = window_start(i, oh, h), h1 = window_end(i, oh, h);
          for (std::int64_t j = 0; j < ow; ++j, ++o) {
            const std::int64_t w0 = window_start(j, ow, w), w1 = window_end(j, ow, w);
            std::int64_t best_index = (d0 * h + h0) * w + w0;
            T best = -std::numeric_limits<T>::infinity();
            for (std::int64_t id = d0; id < d1; ++id) {
              for (std::int64_t ih = h0; ih < h1; ++ih) {
                for (std::int64_t iw = w0; iw < w1; ++iw) {
                  const std::int64_t at = (id * h + ih) * w + iw;
                  const T v = in[at];
                  if (v > best || std::isnan(v)) {
                    best = v;
                    best_index = at;
                  }
                }
              }
            }
            dst[o] = best;
            idx[o] = best_index;
          }
        }
      }
    }
    return result;
  });
  s.emplace_back(std::move(out));
  s.emplace_back(std::move(indices));
}

}  // namespace

void register_adaptive_max_pooling_ops(OperatorRegistry& r) {
  r.add({"aten::adaptive_max_pool2d", 2, {}, adaptive_max_pool2d});
  r.add({"aten::adaptive_max_pool1d", 2, {}, adaptive_max_pool1d});
  r.add({"aten::adaptive_max_pool3d", 2, {}, adaptive_max_pool3d});
}

}  // namespace symbolite::ops::nn
