// TorchScript ints are int64 and wrap on overflow, as PyTorch's compiled arithmetic runs on
// x86-64 (9223372036854775807 + 1 is -9223372036854775808 there); in C++ signed overflow is
// undefined, so these compute in uint64, whose wrapping converts back exactly (C++20).
#pragma once

#include <cstdint>
#include <type_traits>

namespace symbolite::ops {

// a + b, a - b, a * b and -a in a tensor's element type T too: a float's own; an integer's
// modulo 2^bits, computed in uint64 and truncated (int32 + int32 overflows int, and uint16 *
// uint16 promoted to int overflows too), as PyTorch's x86-64 build computes them.
template <typename T>
constexpr bool kWrapsModulo = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T>
constexpr T wrapping_add(T a, T b) {
  if constexpr (kWrapsModulo<T>) {
    return static_cast<T>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
constexpr T wrapping_sub(T a, T b) {
  if constexpr (kWrapsModulo<T>) {
    return static_cast<T>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
constexpr T wrapping_mul(T a, T b) {
  if constexpr (kWrapsModulo<T>) {
    return static_cast<T>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
  } else {
    return static_cast<T>(a * b);
  }
}
template <typename T>
constexpr T wrapping_neg(T a) {
  return wrapping_sub(T{0}, a);
}

// TorchScript's ints, whose operands mix int64 and plain literals.
inline std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return wrapping_add<std::int64_t>(a, b);
}
inline std::int64_t wrapping_sub(std::int64_t a, std::int64_t b) {
  return wrapping_sub<std::int64_t>(a, b);
}
inline std::int64_t wrapping_mul(std::int64_t a, std::int64_t b) {
  return wrapping_mul<std::int64_t>(a, b);
}

// Python's floor division and modulo of ints (b != 0): the quotient rounded down, the
// remainder with b's sign, neither overflowing on the way. x // -1 is the wrapped negation and
// x % -1 is 0, computed: x86-64 traps on INT64_MIN / -1 (it kills PyTorch 1.13's process).
struct FloorDivMod {
  std::int64_t quotient;
  std::int64_t remainder;
};
inline FloorDivMod floor_divmod(std::int64_t a, std::int64_t b) {
  if (b == -1) return {wrapping_sub(0, a), 0};
  std::int64_t q = a / b, r = a % b;
  if (r != 0 && (r < 0) != (b < 0)) {  // truncated toward zero: one step down
    --q;
    r += b;
  }
  return {q, r};
}

}  // namespace symbolite::ops
