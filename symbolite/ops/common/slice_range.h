// Python's `seq[start:stop:step]` on a sequence of `length` items, as PyTorch's
// slice_indices_adjust computes it for lists and strings: None bounds take the step's
// direction defaults, negative bounds count from the end, out-of-range bounds clamp.
#pragma once

#include <cstdint>

#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {

struct SliceRange {
  std::int64_t start = 0;  // first index taken
  std::int64_t count = 0;  // how many, `step` apart
};

// `start` and `stop` are int or None.
inline SliceRange slice_range(std::int64_t length, const IValue& start_v, const IValue& stop_v,
                              std::int64_t step) {
  if (step == 0) fail("List slice should have non-zero step");
  auto clamp = [&](std::int64_t i) {
    if (i < 0) {
      i += length;
      if (i < 0) i = step < 0 ? -1 : 0;
    } else if (i >= length) {
      i = step < 0 ? length - 1 : length;
    }
    return i;
  };
  std::int64_t start = start_v.is_none() ? (step < 0 ? length - 1 : 0) : clamp(start_v.to_int());
  std::int64_t stop = stop_v.is_none() ? (step < 0 ? -1 : length) : clamp(stop_v.to_int());
  SliceRange r{start, 0};
  if (step < 0 && stop < start) r.count = (start - stop - 1) / -step + 1;
  if (step > 0 && start < stop) r.count = (stop - start - 1) / step + 1;
  return r;
}

}  // namespace symbolite::ops
