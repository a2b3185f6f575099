// Whether a floating value converts to an integer type. C++ leaves static_cast<T>(d) undefined
// for NaN, the infinities and any d whose truncation T cannot hold, and a model file or its
// inputs can make each of those. The usual test, d <= max as a double, is wrong for int64: its
// max rounds up to 2^63, which passes and does not convert (PyTorch 1.13 has that test).
#pragma once

#include <limits>
#include <type_traits>

namespace symbolite::ops {

// d in [lowest, max + 1) of T, so static_cast<T>(d) is defined; false for NaN.
template <typename T, typename F>
constexpr bool fits_integer(F d) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_floating_point_v<F>);
  // max + 1 is 2^digits, exact in every floating type (max itself need not be).
  constexpr F kAboveMax = F(2) * static_cast<F>(std::numeric_limits<T>::max() / 2 + 1);
  return d >= static_cast<F>(std::numeric_limits<T>::lowest()) && d < kAboveMax;
}

}  // namespace symbolite::ops
