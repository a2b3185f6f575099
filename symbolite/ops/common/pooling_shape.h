// The output-size arithmetic every pooling kernel shares (PyTorch's pooling_output_shape and
// the division it rounds with), so 1-d, 2-d and n-d pooling agree on every edge case.
#pragma once

#include <cstdint>

namespace symbolite::ops::nn {

// Division rounding toward negative infinity (PyTorch's div_rtn).
inline std::int64_t div_floor(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// PyTorch's pooling_output_shape, without argument checks: the output length of one
// dimension; with ceil_mode the last window must start inside the input or its left padding.
inline std::int64_t pooling_output_length(std::int64_t input, std::int64_t kernel, std::int64_t pad,
                                          std::int64_t stride, std::int64_t dilation,
                                          bool ceil_mode) {
  std::int64_t out =
      div_floor(input + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0),
                stride) +
      1;
  if (ceil_mode && (out - 1) * stride >= input + pad) --out;
  return out;
}

// The same after PyTorch's checks of stride and padding (pool2d_shape_check's messages).
std::int64_t checked_pooling_output_length(std::int64_t input, std::int64_t kernel,
                                           std::int64_t pad, std::int64_t stride,
                                           std::int64_t dilation, bool ceil_mode);

}  // namespace symbolite::ops::nn
