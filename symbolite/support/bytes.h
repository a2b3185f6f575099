// `Bytes`: an immutable byte range plus whatever keeps it alive.
//
// A Bytes may view a memory-mapped file, a decompressed buffer, or a slice of either; the
// owner (a type-erased shared_ptr) is held by every copy and every slice, so the memory
// outlives all views by construction. This is how archive entries, pickle strings and
// source texts stay zero-copy without dangling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symbolite {

class Bytes {
 public:
  Bytes() = default;
  // Views [data, data + size); `owner` must keep that memory alive.
  Bytes(std::shared_ptr<const void> owner, const std::uint8_t* data, std::size_t size)
      : owner_(std::move(owner)), data_(data), size_(size) {}

  // Takes ownership of a buffer.
  static Bytes from_vector(std::vector<std::uint8_t> buffer);
  // Copies text into a new owned buffer.
  static Bytes copy_of(std::string_view text);

  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const std::uint8_t> span() const { return {data_, size_}; }
  std::string_view str() const { return {reinterpret_cast<const char*>(data_), size_}; }

  // A view of [offset, offset + length) sharing this owner. The range must lie inside.
  Bytes slice(std::size_t offset, std::size_t length) const;

  const std::shared_ptr<const void>& owner() const { return owner_; }

 private:
  std::shared_ptr<const void> owner_;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace symbolite
