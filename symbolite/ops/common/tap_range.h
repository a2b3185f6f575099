// Which outputs of a strided window (convolution, pooling) a tap reaches inside the input:
// im2col and the tap-by-tap pooling loops copy or combine exactly those and treat the rest
// as padding.
#pragma once

#include <algorithm>
#include <cstdint>

namespace symbolite::ops {

// Outputs [lo, hi) of `out` whose input position `o * stride + offset` lies in [0, size);
// lo == hi when there are none.
struct TapRange {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

inline TapRange tap_range(std::int64_t offset, std::int64_t stride, std::int64_t size,
                          std::int64_t out) {
  const std::int64_t last = size - 1 - offset;
  const std::int64_t hi = last < 0 ? 0 : std::min(out, last / stride + 1);
  const std::int64_t lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  return {std::min(lo, hi), hi};
}

}  // namespace symbolite::ops
