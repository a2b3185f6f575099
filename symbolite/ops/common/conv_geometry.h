// The shape of one 2-d convolution, as the compute paths (conv_ops.cpp, depthwise_conv.cpp)
// see it after PyTorch's checks: batched NCHW input, OIHW weight, all parameters positive.
#pragma once

#include <cstdint>
#include <functional>

namespace symbolite::ops::nn {

struct ConvGeometry {
  std::int64_t n, c, h, w;     // input
  std::int64_t o, cg, kh, kw;  // weight: out channels, in channels per group, kernel
  std::int64_t oh, ow;         // output
  std::int64_t sh, sw, ph, pw, dh, dw, groups;
};

// Sets g's output size from its input, kernel, stride, padding and dilation (PyTorch's
// formula; the caller has checked the kernel fits the padded input).
inline void set_output_size(ConvGeometry& g) {
  g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
}

// Told by a compute path that output channels [first, first + count) of image n are written
// over output rows [top, top + rows), while they are in cache: conv_ops.cpp applies bias and
// fused epilogue there.
using ChannelsDone = std::function<void(std::int64_t n, std::int64_t first, std::int64_t count,
                                        std::int64_t top, std::int64_t rows)>;

}  // namespace symbolite::ops::nn
