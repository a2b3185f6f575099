// `ByteCursor`: reads little-endian integers and byte runs from an untrusted byte range,
// refusing to step past its end. Binary parsers (zip headers, ...) read through a cursor so
// that a truncated or lying input becomes an Error naming the byte offset, never an
// out-of-bounds read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace symbolite {

class ByteCursor {
 public:
  // Reads `data`, whose first byte sits at offset `base` of the enclosing file; offsets in
  // errors are file offsets. `what` names the structure being read ("central directory
  // entry") and must outlive the cursor (a literal, typically).
  ByteCursor(std::span<const std::uint8_t> data, std::uint64_t base, std::string_view what)
      : data_(data), base_(base), what_(what) {}

  std::uint8_t u8();
  std::uint16_t u16();
  std::uint32_t u32();
  std::uint64_t u64();
  // LEB128 unsigned varint (at most 10 bytes) and its zigzag-signed form; see varint.h.
  std::uint64_t varint();
  std::int64_t svarint();
  // The next `length` bytes, as a view into the data.
  std::span<const std::uint8_t> take(std::size_t length);
  void skip(std::size_t length) { take(length); }

  // File offset of the next byte to read.
  std::uint64_t offset() const { return base_ + position_; }
  std::size_t remaining() const { return data_.size() - position_; }

 private:
  // Throws Error(kFormat) unless `length` more bytes are available.
  void need(std::size_t length) const;

  std::span<const std::uint8_t> data_;
  std::uint64_t base_;
  std::string_view what_;
  std::size_t position_ = 0;
};

// Little-endian loads from a buffer the caller has already bounds-checked.
inline std::uint16_t load_u16le(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline std::uint32_t load_u32le(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}
inline std::uint64_t load_u64le(const std::uint8_t* p) {
  return std::uint64_t{load_u32le(p)} | (std::uint64_t{load_u32le(p + 4)} << 32);
}

}  // namespace symbolite
