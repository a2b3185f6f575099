#include "symbolite/ops/common/pooling_shape.h"

#include <fmt/format.h>

#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {

std::int64_t checked_pooling_output_length(std::int64_t input, std::int64_t kernel,
                                           std::int64_t pad, std::int64_t stride,
                                           std::int64_t dilation, bool ceil_mode) {
  if (stride == 0) fail("stride should not be zero");
  if (pad < 0) fail(fmt::format("pad must be non-negative, but got pad: {}", pad));
  if (pad > kernel / 2) {
    fail(fmt::format("pad should be at most half of kernel size, but got pad={} and kernel_size={}",
                     pad, kernel));
  }
  return pooling_output_length(input, kernel, pad, stride, dilation, ceil_mode);
}

}  // namespace symbolite::ops::nn
