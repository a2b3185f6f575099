#include "symbolite/pickle/cursor.h"

#include <bit>

#include <fmt/format.h>

#include "symbolite/pickle/opcodes.h"
#include "symbolite/support/error.h"

namespace symbolite::pickle {

std::uint8_t Cursor::next_opcode() {
  opcode_offset_ = pos_;
  opcode_ = u8();
  return opcode_;
}

void Cursor::need(std::uint64_t length) const {
  if (length > remaining()) {
    throw Error(ErrorKind::kFormat, fmt::format("truncated {}: needs {} bytes, {} left",
                                                opcode_name(opcode_), length, remaining()));
  }
}

std::uint64_t Cursor::little_endian(std::size_t width) {
  need(width);
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= std::uint64_t{data_.data()[pos_ + i]} << (8 * i);
  }
  pos_ += width;
  return value;
}

std::uint8_t Cursor::u8() { return static_cast<std::uint8_t>(little_endian(1)); }
std::uint16_t Cursor::u16() { return static_cast<std::uint16_t>(little_endian(2)); }
std::uint32_t Cursor::u32() { return static_cast<std::uint32_t>(little_endian(4)); }
std::int32_t Cursor::i32() { return static_cast<std::int32_t>(u32()); }
std::uint64_t Cursor::u64() { return little_endian(8); }

double Cursor::f64_big_endian() {
  need(8);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < 8; ++i) bits = (bits << 8) | data_.data()[pos_ + i];
  pos_ += 8;
  return std::bit_cast<double>(bits);
}

Bytes Cursor::take(std::uint64_t length) {
  need(length);
  Bytes view = data_.slice(pos_, static_cast<std::size_t>(length));
  pos_ += static_cast<std::size_t>(length);
  return view;
}

std::string_view Cursor::line() {
  std::string_view rest = data_.str().substr(pos_);
  std::size_t end = rest.find('\n');
  if (end == std::string_view::npos) {
    throw Error(ErrorKind::kFormat, fmt::format("truncated {}: no end of line in the last {} bytes",
                                                opcode_name(opcode_), rest.size()));
  }
  pos_ += end + 1;
  return rest.substr(0, end);
}

}  // namespace symbolite::pickle
