// Compact integer encoding for symbolite's own files (the sidecar): LEB128 unsigned varints,
// and zigzag for signed values so small negatives stay small. Decoding is ByteCursor::varint
// and ByteCursor::svarint (bounds-checked).
#pragma once

#include <cstdint>
#include <vector>

namespace symbolite {

inline void put_varint(std::vector<std::uint8_t>& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(value));
}

inline void put_svarint(std::vector<std::uint8_t>& out, std::int64_t value) {
  put_varint(out,
             (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63));
}

inline void put_u32le(std::vector<std::uint8_t>& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

inline void put_u64le(std::vector<std::uint8_t>& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

}  // namespace symbolite
