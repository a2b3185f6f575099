#include "symbolite/support/content_hash.h"

#include <xxhash.h>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite {

ContentHasher::ContentHasher() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw Error(ErrorKind::kInternal, "cannot allocate hash state");
  XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_));
}

ContentHasher::~ContentHasher() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void ContentHasher::update(std::span<const std::uint8_t> bytes) {
  XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), bytes.data(), bytes.size());
}

void ContentHasher::update(std::string_view text) {
  XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), text.data(), text.size());
}

void ContentHasher::update_u64(std::uint64_t value) {
  std::uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<std::uint8_t>(value >> (8 * i));
  update(std::span<const std::uint8_t>(le, 8));
}

Hash128 ContentHasher::digest() const {
  XXH128_hash_t h = XXH3_128bits_digest(static_cast<const XXH3_state_t*>(state_));
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, h);
  Hash128 out;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = canonical.digest[i];
  return out;
}

std::string to_hex(const Hash128& hash) {
  std::string out;
  for (auto b : hash) out += fmt::format("{:02x}", b);
  return out;
}

}  // namespace symbolite
