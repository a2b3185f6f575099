// The reductions scatter_reduce and index_reduce apply where several values land in one place
// ("sum", "prod", "mean", "amax", "amin"), as PyTorch 1.13 applies them: amax and amin keep a
// NaN, bools combine as or / and, a mean of integers rounds down.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

#include "symbolite/ops/common/tensor_loops.h"

namespace symbolite::ops {

enum class IndexReduction { kSum, kProd, kMean, kAmax, kAmin };

inline std::optional<IndexReduction> index_reduction_named(std::string_view name) {
  if (name == "sum") return IndexReduction::kSum;
  if (name == "prod") return IndexReduction::kProd;
  if (name == "mean") return IndexReduction::kMean;
  if (name == "amax") return IndexReduction::kAmax;
  if (name == "amin") return IndexReduction::kAmin;
  return std::nullopt;
}

// What a place starts from when its own value is left out (include_self=False).
template <typename T>
T reduction_identity(IndexReduction r) {
  using Limits = std::numeric_limits<T>;
  switch (r) {
    case IndexReduction::kProd:
      return T(1);
    case IndexReduction::kAmax:
      return Limits::has_infinity ? -Limits::infinity() : Limits::lowest();
    case IndexReduction::kAmin:
      return Limits::has_infinity ? Limits::infinity() : Limits::max();
    default:
      return T(0);
  }
}

// `place` combined with one more value (a mean sums; mean_of divides at the end).
template <typename T>
T reduce_into(IndexReduction r, T place, T value) {
  if constexpr (std::is_same_v<T, bool>) {
    return r == IndexReduction::kProd || r == IndexReduction::kAmin ? (place && value)
                                                                    : (place || value);
  } else {
    switch (r) {
      case IndexReduction::kProd:
        return static_cast<T>(place * value);
      case IndexReduction::kAmax:
      case IndexReduction::kAmin:
        if (is_nan_element(place)) return place;
        if (is_nan_element(value)) return value;
        return r == IndexReduction::kAmax ? (place < value ? value : place)
                                          : (value < place ? value : place);
      default:
        return static_cast<T>(place + value);
    }
  }
}

// A place's mean from its sum and how many values it got (at least one counts); integers
// round down.
template <typename T>
T mean_of(T sum, std::int64_t count) {
  const auto c = static_cast<T>(count < 1 ? 1 : count);
  if constexpr (std::is_same_v<T, bool>) {
    return sum;  // callers refuse a bool mean, as PyTorch does
  } else if constexpr (std::is_floating_point_v<T>) {
    return sum / c;
  } else {
    const T q = static_cast<T>(sum / c);
    return static_cast<T>(sum % c != 0 && (sum < 0) != (c < 0) ? q - 1 : q);
  }
}

}  // namespace symbolite::ops
