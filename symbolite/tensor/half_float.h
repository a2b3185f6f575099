// float16 and bfloat16 elements to and from float, as PyTorch 1.13's tensor copies convert them:
// to 16 bits rounding to nearest, ties to even (a NaN becomes the NaN its vectorized copies
// write: float16's quiet NaN with the sign kept, bfloat16's all-ones 0xffff); from 16 bits
// exactly. Everything that
// reads or writes these dtypes goes through float, as PyTorch's CPU copies do (a double is
// first rounded to float).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace symbolite::tensor {

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000U) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fU;
  const std::uint32_t mantissa = h & 0x3ffU;
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24F;
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000U | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline std::uint16_t float_to_half(float f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000U);
  const std::uint32_t magnitude = bits & 0x7fffffffU;
  if (magnitude > 0x7f800000U) return sign | 0x7e00U;               // NaN
  if (magnitude >= 0x47800000U) return sign | 0x7c00U;              // 65536 and up (and inf): inf
  if (magnitude < 0x38800000U) {                                    // below 2^-14: a subnormal
    const float units = std::bit_cast<float>(magnitude) * 0x1p24F;  // exact: a power of 2
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(units)));
  }
  // A normal: rebias the exponent (127 -> 15), keep 10 mantissa bits, round the other 13; a
  // carry out of the mantissa rolls into the exponent, up to inf.
  std::uint32_t h = ((magnitude >> 23) - 112) << 10 | ((magnitude >> 13) & 0x3ffU);
  const std::uint32_t rest = magnitude & 0x1fffU;
  if (rest > 0x1000U || (rest == 0x1000U && (h & 1U) != 0)) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

inline float bfloat16_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

inline std::uint16_t float_to_bfloat16(float f) {
  if (std::isnan(f)) return 0xffffU;
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  return static_cast<std::uint16_t>((bits + 0x7fffU + ((bits >> 16) & 1U)) >> 16);
}

}  // namespace symbolite::tensor
