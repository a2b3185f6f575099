// 128-bit content hashes (XXH3-128 from Debian's libxxhash): fast, stable across platforms
// and releases, and wide enough that two different models never share an identifier by
// accident. Not a cryptographic hash: it identifies, it does not authenticate.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace symbolite {

using Hash128 = std::array<std::uint8_t, 16>;

class ContentHasher {
 public:
  ContentHasher();
  ~ContentHasher();
  ContentHasher(const ContentHasher&) = delete;
  ContentHasher& operator=(const ContentHasher&) = delete;

  void update(std::span<const std::uint8_t> bytes);
  void update(std::string_view text);
  void update_u64(std::uint64_t value);
  Hash128 digest() const;

 private:
  void* state_;  // XXH3_state_t, kept opaque so xxhash.h stays out of this header
};

// 32 lowercase hex digits.
std::string to_hex(const Hash128& hash);

}  // namespace symbolite
