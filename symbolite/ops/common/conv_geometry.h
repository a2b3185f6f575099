// The shape of one 2-d convolution, as the compute paths (conv_ops.cpp, depthwise_conv.cpp)
// see it after PyTorch's checks: batched NCHW input, OIHW weight, all parameters positive.
#pragma once

#include <cstdint>

namespace symbolite::ops::nn {

struct ConvGeometry {
  std::int64_t n, c, h, w;     // input
  std::int64_t o, cg, kh, kw;  // weight: out channels, in channels per group, kernel
  std::int64_t oh, ow;         // output
  std::int64_t sh, sw, ph, pw, dh, dw, groups;
};

}  // namespace symbolite::ops::nn
