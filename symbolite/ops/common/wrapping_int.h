// TorchScript ints are int64 and wrap on overflow, as PyTorch's compiled arithmetic runs on
// x86-64 (9223372036854775807 + 1 is -9223372036854775808 there); in C++ signed overflow is
// undefined, so these compute in uint64, whose wrapping converts back exactly (C++20).
#pragma once

#include <cstdint>

namespace symbolite::ops {

inline std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline std::int64_t wrapping_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
inline std::int64_t wrapping_mul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}

}  // namespace symbolite::ops
