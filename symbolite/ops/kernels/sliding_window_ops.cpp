// Sliding windows as columns: im2col (F.unfold: every kernel-sized window of a batch of images,
// one column each) and col2im (F.fold: columns summed back into images, overlaps added), with
// dilation, padding and stride, as patch-embedding and local-attention models call them.
// Floating tensors only, as PyTorch's kernels.
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

struct Window {
  std::int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

Window window_of(const Ints& kernel, const Ints& dilation, const Ints& padding,
                 const Ints& stride) {
  auto pair = [](const Ints& v, const char* name) {
    if (v.size() != 2)
      fail(fmt::format("It is expected {}  equals to 2, but got size {}", name, v.size()));
    return v;
  };
  const Ints k = pair(kernel, "kernel_size.size()"), d = pair(dilation, "dilation.size()"),
             p = pair(padding, "padding.size()"), s = pair(stride, "stride.size()");
  if (k[0] <= 0 || k[1] <= 0) {
    fail(
        fmt::format("kernel size should be greater than zero, but got kernel_height: {} "
                    "kernel_width: {}",
                    k[0], k[1]));
  }
  if (d[0] <= 0 || d[1] <= 0) {
    fail(
        fmt::format("dilation should be greater than zero, but got dilation_height: {} "
                    "dilation_width: {}",
                    d[0], d[1]));
  }
  if (s[0] <= 0 || s[1] <= 0) {
    fail(
        fmt::format("stride should be greater than zero, but got stride_height: {} "
                    "stride_width: {}",
                    s[0], s[1]));
  }
  if (p[0] < 0 || p[1] < 0) {
    fail(fmt::format("padding should be non-negative, but got pad_height: {} pad_width: {}", p[0],
                     p[1]));
  }
  return {k[0], k[1], d[0], d[1], p[0], p[1], s[0], s[1]};
}

// Windows along one axis of `size` with padding, dilation and stride.
std::int64_t blocks(std::int64_t size, std::int64_t pad, std::int64_t dil, std::int64_t k,
                    std::int64_t stride) {
  return (size + 2 * pad - (dil * (k - 1) + 1)) / stride + 1;
}

// Calls f(column, pixel) for every element of the columns matrix [n, c * kh * kw, oh * ow] in
// its row-major order (image, channel, tap, window): `column` its index, `pixel` the index in
// the images [n, c, h, w] of the element it holds, -1 where the window lies in the padding.
template <typename F>
void for_each_column(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t wd,
                     const Window& w, std::int64_t oh, std::int64_t ow, F f) {
  std::int64_t column = 0;
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t ch = 0; ch < c; ++ch) {
      for (std::int64_t i = 0; i < w.kh; ++i) {
        for (std::int64_t j = 0; j < w.kw; ++j) {
          for (std::int64_t y = 0; y < oh; ++y) {
            const std::int64_t iy = y * w.sh - w.ph + i * w.dh;
            for (std::int64_t x = 0; x < ow; ++x, ++column) {
              const std::int64_t ix = x * w.sw - w.pw + j * w.dw;
              const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < wd;
              f(column, inside ? ((b * c + ch) * h + iy) * wd + ix : -1);
            }
          }
        }
      }
    }
  }
}

// im2col(self, kernel_size, dilation, padding, stride): [N, C, H, W] (or [C, H, W]) to
// [N, C * kh * kw, L], L the windows, zeros where a window reaches into the padding.
void im2col(Stack& s) {
  const Ints stride = int_list_arg(pop(s)), padding = int_list_arg(pop(s)),
             dilation = int_list_arg(pop(s)), kernel = int_list_arg(pop(s));
  const Tensor input = pop(s).to_tensor();
  const Window w = window_of(kernel, dilation, padding, stride);
  const bool batched = input.dim() == 4;
  if (input.dim() != 3 && !batched) {
    fail(
        fmt::format("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                    "non-zero dimensions for input, but got: {}",
                    tensor::format_sizes(input.sizes())));
  }
  const Tensor x = input.contiguous();
  const std::int64_t n = batched ? x.sizes()[0] : 1, c = x.sizes()[x.dim() - 3],
                     h = x.sizes()[x.dim() - 2], wd = x.sizes()[x.dim() - 1];
  const std::int64_t oh = blocks(h, w.ph, w.dh, w.kh, w.sh),
                     ow = blocks(wd, w.pw, w.dw, w.kw, w.sw);
  if (oh < 1 || ow < 1) {
    fail(
        fmt::format("Given input with spatial size ({}, {}), kernel_size=({}, {}), "
                    "dilation=({}, {}), padding=({}, {}), calculated shape of the array of "
                    "sliding blocks as ({}, {}), but its components must be at least one.",
                    h, wd, w.kh, w.kw, w.dh, w.dw, w.ph, w.pw, oh, ow));
  }
  Ints sizes = {c * w.kh * w.kw, oh * ow};
  if (batched) sizes.insert(sizes.begin(), n);
  Tensor out = Tensor::uninitialized(sizes, x.dtype());
  dispatch_floating(x.dtype(), "im2col_out_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.template data<T>();
    T* o = out.template mutable_data<T>();
    for_each_column(n, c, h, wd, w, oh, ow, [&](std::int64_t column, std::int64_t pixel) {
      o[column] = pixel >= 0 ? in[pixel] : T(0);
    });
  });
  s.emplace_back(std::move(out));
}

// col2im(self, output_size, kernel_size, dilation, padding, stride): [N, C * kh * kw, L] (or
// without N) back to [N, C, H, W], every window's values added where it lies.
void col2im(Stack& s) {
  const Ints stride = int_list_arg(pop(s)), padding = int_list_arg(pop(s)),
             dilation = int_list_arg(pop(s)), kernel = int_list_arg(pop(s)),
             output_size = int_list_arg(pop(s));
  const Tensor input = pop(s).to_tensor();
  const Window w = window_of(kernel, dilation, padding, stride);
  if (output_size.size() != 2) {
    fail(
        fmt::format("It is expected output_size equals to 2, but got size {}", output_size.size()));
  }
  const bool batched = input.dim() == 3;
  if (input.dim() != 2 && !batched) {
    fail(
        fmt::format("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size "
                    "and non-zero dimensions for input, but got: {}",
                    tensor::format_sizes(input.sizes())));
  }
  const Tensor x = input.contiguous();
  const std::int64_t n = batched ? x.sizes()[0] : 1;
  const std::int64_t rows = x.sizes()[x.dim() - 2], length = x.sizes()[x.dim() - 1];
  if (rows % (w.kh * w.kw) != 0) {
    fail(
        fmt::format("Expected size of input's dimension 1 to be divisible by the product of "
                    "kernel_size, but got input.size(1)={} and kernel_size=({}, {}).",
                    rows, w.kh, w.kw));
  }
  const std::int64_t c = rows / (w.kh * w.kw), h = output_size[0], wd = output_size[1];
  const std::int64_t oh = blocks(h, w.ph, w.dh, w.kh, w.sh),
                     ow = blocks(wd, w.pw, w.dw, w.kw, w.sw);
  if (oh * ow != length) {
    fail(fmt::format(
        "Given output_size=({}, {}), kernel_size=({}, {}), dilation=({}, {}), "
        "padding=({}, {}), stride=({}, {}), expected size of input's dimension 2 to "
        "match the calculated number of sliding blocks {} * {} = {}, but got "
        "input.size(2)={}.",
        h, wd, w.kh, w.kw, w.dh, w.dw, w.ph, w.pw, w.sh, w.sw, oh, ow, oh * ow, length));
  }
  Ints sizes = {c, h, wd};
  if (batched) sizes.insert(sizes.begin(), n);
  Tensor out = Tensor::empty(sizes, x.dtype());
  dispatch_floating(x.dtype(), "col2im_out_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.template data<T>();
    T* o = out.template mutable_data<T>();
    for_each_column(n, c, h, wd, w, oh, ow, [&](std::int64_t column, std::int64_t pixel) {
      if (pixel >= 0) o[pixel] += in[column];
    });
  });
  s.emplace_back(std::move(out));
}

}  // namespace

void register_sliding_window_ops(OperatorRegistry& r) {
  r.add({"aten::im2col", 5, {}, im2col});
  r.add({"aten::col2im", 6, {}, col2im});
}

}  // namespace symbolite::ops
