// 3-d pooling: aten::adaptive_avg_pool3d (torchvision's video models end with it), each
// output cell the mean of input cells [floor(i*in/out), ceil((i+1)*in/out)) in every
// dimension, as PyTorch's CPU kernel computes it; float32 and float64; 4-d (unbatched) or
// 5-d input.
#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

std::int64_t start_index(std::int64_t i, std::int64_t out, std::int64_t in) {
  return (i * in) / out;
}
std::int64_t end_index(std::int64_t i, std::int64_t out, std::int64_t in) {
  return ((i + 1) * in + out - 1) / out;
}

template <typename T>
void pool_planes(const Tensor& x, const Ints& o, Tensor& out) {
  const Ints& xs = x.sizes();
  const std::size_t nd = xs.size();
  const std::int64_t d = xs[nd - 3], h = xs[nd - 2], w = xs[nd - 1];
  std::int64_t planes = 1;
  for (std::size_t i = 0; i + 3 < nd; ++i) planes *= xs[i];
  const T* src = x.data<T>();
  T* dst = out.mutable_data<T>();
  for (std::int64_t p = 0; p < planes; ++p) {
    const T* plane = src + p * d * h * w;
    for (std::int64_t od = 0; od < o[0]; ++od) {
      const std::int64_t d0 = start_index(od, o[0], d), d1 = end_index(od, o[0], d);
      for (std::int64_t oh = 0; oh < o[1]; ++oh) {
        const std::int64_t h0 = start_index(oh, o[1], h), h1 = end_index(oh, o[1], h);
        for (std::int64_t ow = 0; ow < o[2]; ++ow) {
          const std::int64_t w0 = start_index(ow, o[2], w), w1 = end_index(ow, o[2], w);
          T sum = 0;
          for (std::int64_t i = d0; i < d1; ++i) {
            for (std::int64_t j = h0; j < h1; ++j) {
              for (std::int64_t k = w0; k < w1; ++k) sum += plane[(i * h + j) * w + k];
            }
          }
          *dst++ = sum / static_cast<T>((d1 - d0) * (h1 - h0) * (w1 - w0));
        }
      }
    }
  }
}

// aten::adaptive_avg_pool3d(Tensor self, int[3] output_size)
void adaptive_avg_pool3d(Stack& s) {
  Ints output_size = int_list_arg(pop(s));
  IValue input_arg = pop(s);
  const Tensor& input = input_arg.to_tensor();
  if (output_size.size() != 3) fail("adaptive_avg_pool3d: output_size must be 3");
  for (auto v : output_size) {
    if (v < 0) {
      fail(fmt::format(
          "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
          "received {{{}, {}, {}}}",
          output_size[0], output_size[1], output_size[2]));
    }
  }
  if (input.dim() != 4 && input.dim() != 5) {
    fail(fmt::format("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {}",
                     format_ints(input.sizes())));
  }
  require_floating("aten::adaptive_avg_pool3d", "adaptive_avg_pool3d_cpu", input.dtype());
  Tensor x = input.contiguous();
  Ints sizes(x.sizes().begin(), x.sizes().end() - 3);
  sizes.insert(sizes.end(), output_size.begin(), output_size.end());
  Tensor out = Tensor::empty(sizes, x.dtype());
  if (out.numel() != 0 && x.numel() != 0) {
    dispatch_floating(x.dtype(), "adaptive_avg_pool3d_cpu",
                      [&](auto tag) { pool_planes<decltype(tag)>(x, output_size, out); });
  }
  s.emplace_back(std::move(out));
}

}  // namespace

void register_pooling3d_ops(OperatorRegistry& r) {
  r.add({"aten::adaptive_avg_pool3d", 2, {}, adaptive_avg_pool3d});
}

}  // namespace symbolite::ops::nn
