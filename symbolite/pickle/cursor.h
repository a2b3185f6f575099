// `Cursor`: bounds-checked reading of a pickle's opcodes and their arguments.
//
// Every read checks the remaining input first, so a length field claiming more bytes than
// exist fails before anything is allocated. Errors name the opcode being read but not the
// offset: the unpickler prefixes "byte N:" with the opcode's offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "symbolite/support/bytes.h"

namespace symbolite::pickle {

class Cursor {
 public:
  explicit Cursor(Bytes data) : data_(std::move(data)) {}

  bool at_end() const { return pos_ == data_.size(); }
  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return data_.size() - pos_; }

  // Reads the next opcode byte and remembers it for error messages. Must not be at_end().
  std::uint8_t next_opcode();
  std::size_t opcode_offset() const { return opcode_offset_; }

  std::uint8_t u8();
  std::uint16_t u16();  // little-endian, like all pickle integers except BINFLOAT
  std::uint32_t u32();
  std::int32_t i32();
  std::uint64_t u64();
  double f64_big_endian();

  // A zero-copy view of the next `length` bytes, sharing the input's owner.
  Bytes take(std::uint64_t length);
  // The bytes up to the next '\n' (consumed, not returned): the argument lines of GLOBAL.
  std::string_view line();

 private:
  // Throws Error(kFormat) unless `length` more bytes exist.
  void need(std::uint64_t length) const;
  std::uint64_t little_endian(std::size_t width);

  Bytes data_;
  std::size_t pos_ = 0;
  std::size_t opcode_offset_ = 0;
  std::uint8_t opcode_ = 0;
};

}  // namespace symbolite::pickle
