#include "symbolite/support/byte_cursor.h"

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite {

void ByteCursor::need(std::size_t length) const {
  if (length > remaining()) {
    throw Error(ErrorKind::kFormat,
                fmt::format("byte {}: truncated {}: needs {} more bytes, only {} left", offset(),
                            what_, length, remaining()));
  }
}

std::uint8_t ByteCursor::u8() {
  need(1);
  return data_[position_++];
}

std::uint16_t ByteCursor::u16() {
  need(2);
  std::uint16_t value = load_u16le(data_.data() + position_);
  position_ += 2;
  return value;
}

std::uint32_t ByteCursor::u32() {
  need(4);
  std::uint32_t value = load_u32le(data_.data() + position_);
  position_ += 4;
  return value;
}

std::uint64_t ByteCursor::u64() {
  need(8);
  std::uint64_t value = load_u64le(data_.data() + position_);
  position_ += 8;
  return value;
}

std::span<const std::uint8_t> ByteCursor::take(std::size_t length) {
  need(length);
  auto run = data_.subspan(position_, length);
  position_ += length;
  return run;
}

std::uint64_t ByteCursor::varint() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    std::uint8_t byte = u8();
    // The tenth byte holds bit 63 only; more would be silently shifted out.
    if (shift == 63 && (byte & 0x7fu) > 1) {
      throw Error(ErrorKind::kFormat,
                  fmt::format("byte {}: {}: varint does not fit 64 bits", offset() - 10, what_));
    }
    value |= std::uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80u) == 0) return value;
  }
  throw Error(ErrorKind::kFormat,
              fmt::format("byte {}: {}: varint longer than 10 bytes", offset() - 10, what_));
}

std::int64_t ByteCursor::svarint() {
  std::uint64_t raw = varint();
  return static_cast<std::int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
}

}  // namespace symbolite
