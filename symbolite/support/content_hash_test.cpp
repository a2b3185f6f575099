// ContentHasher: XXH3-128, streamed, printed as its canonical (big-endian) hex. The expected
// values are the test vectors of xxHash itself (cli/xsum_sanity_check.c, seed 0), so a change
// of algorithm, seed, byte order or hex format fails here.
#include "symbolite/support/content_hash.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace symbolite {
namespace {

// xxHash's sanity buffer: byte i is the top byte of PRIME32 * PRIME64^i (mod 2^64).
std::vector<std::uint8_t> sanity_buffer(std::size_t length) {
  std::vector<std::uint8_t> out(length);
  std::uint64_t generator = 2654435761u;
  for (auto& b : out) {
    b = static_cast<std::uint8_t>(generator >> 56);
    generator *= 11400714785074694797u;
  }
  return out;
}

std::string hex_of(std::span<const std::uint8_t> bytes) {
  ContentHasher hasher;
  hasher.update(bytes);
  return to_hex(hasher.digest());
}

TEST(ContentHash, EmptyInputIsXxh128OfNothing) {
  ContentHasher hasher;
  EXPECT_EQ(to_hex(hasher.digest()), "99aa06d3014798d86001c324468d497f");
}

TEST(ContentHash, MatchesXxhashTestVectors) {
  struct Vector {
    std::size_t length;
    const char* hex;  // high64 then low64
  };
  const Vector vectors[] = {
      {1, "a6cd5e9392000f6ac44bdff4074eecdb"},    {6, "082afe0b8162d12a3e7039bdda43cfc6"},
      {12, "6e3efd8fc7802b18061a192713f69ad9"},   {24, "0ce966e4678d37611e7044d28b1b901d"},
      {48, "a002ac4e5478227ef942219aed80f67b"},   {81, "4952f58181ab00425e8bafb9f95fb803"},
      {222, "337e09641b948717f1aebd597cec6b3a"},  {403, "1b6de21e332dd73dcdeb804d65c6dea4"},
      {512, "18d2d110dcc9bca1617e49599013cb6b"},  {2048, "f736557fd47073a5dd59e2c3a5f038e0"},
      {2240, "ccb134fbfa7ce49d6e73a90539cf2948"}, {2367, "e89c0f6ff369b427cb37aeb9e5d361ed"},
  };
  const std::vector<std::uint8_t> buffer = sanity_buffer(2367);
  for (const auto& v : vectors) {
    EXPECT_EQ(hex_of(std::span(buffer).first(v.length)), v.hex) << "length " << v.length;
  }
}

TEST(ContentHash, StreamingInPiecesEqualsOneUpdate) {
  const std::vector<std::uint8_t> buffer = sanity_buffer(2367);
  ContentHasher pieces;
  std::size_t done = 0;
  for (std::size_t step = 1; done < buffer.size(); step = step * 3 + 1) {
    std::size_t n = std::min(step, buffer.size() - done);
    pieces.update(std::span(buffer).subspan(done, n));
    done += n;
  }
  EXPECT_EQ(to_hex(pieces.digest()), "e89c0f6ff369b427cb37aeb9e5d361ed");
}

TEST(ContentHash, TextAndIntegersHashAsTheirBytes) {
  ContentHasher text;
  text.update(std::string_view("model"));
  const std::uint8_t bytes[] = {'m', 'o', 'd', 'e', 'l'};
  EXPECT_EQ(text.digest(), [&] {
    ContentHasher h;
    h.update(std::span<const std::uint8_t>(bytes));
    return h.digest();
  }());

  ContentHasher number;
  number.update_u64(0x0102030405060708);
  ContentHasher little_endian;
  const std::uint8_t le[] = {8, 7, 6, 5, 4, 3, 2, 1};
  little_endian.update(std::span<const std::uint8_t>(le));
  EXPECT_EQ(number.digest(), little_endian.digest());
}

TEST(ContentHash, DigestDoesNotEndTheStream) {
  const std::vector<std::uint8_t> buffer = sanity_buffer(12);
  ContentHasher hasher;
  hasher.update(std::span(buffer).first(6));
  EXPECT_EQ(to_hex(hasher.digest()), "082afe0b8162d12a3e7039bdda43cfc6");
  EXPECT_EQ(to_hex(hasher.digest()), "082afe0b8162d12a3e7039bdda43cfc6");
  hasher.update(std::span(buffer).subspan(6));
  EXPECT_EQ(to_hex(hasher.digest()), "6e3efd8fc7802b18061a192713f69ad9");
}

TEST(ContentHash, EveryBitAndTheLengthMatter) {
  std::vector<std::uint8_t> buffer = sanity_buffer(300);
  const std::string original = hex_of(buffer);
  for (std::size_t i : {std::size_t{0}, std::size_t{150}, std::size_t{299}}) {
    for (int bit = 0; bit < 8; ++bit) {
      buffer[i] ^= static_cast<std::uint8_t>(1u << bit);
      EXPECT_NE(hex_of(buffer), original) << i << ":" << bit;
      buffer[i] ^= static_cast<std::uint8_t>(1u << bit);
    }
  }
  EXPECT_EQ(hex_of(buffer), original);
  std::vector<std::uint8_t> longer = buffer;
  longer.push_back(0);
  EXPECT_NE(hex_of(longer), original);
}

TEST(ContentHash, HexIsThirtyTwoLowercaseDigitsInByteOrder) {
  Hash128 h{};
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(i * 17);
  EXPECT_EQ(to_hex(h), "00112233445566778899aabbccddeeff");
}

}  // namespace
}  // namespace symbolite
