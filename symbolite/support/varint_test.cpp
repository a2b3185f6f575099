// LEB128 varints and their zigzag form: put_varint / put_svarint encode, ByteCursor::varint /
// svarint decode (bounds-checked).
#include "symbolite/support/varint.h"

#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/support/byte_cursor.h"
#include "tests/test_support/error_from.h"

namespace symbolite {
namespace {

using testing::error_from;

std::vector<std::uint8_t> varint_of(std::uint64_t value) {
  std::vector<std::uint8_t> out;
  put_varint(out, value);
  return out;
}

std::vector<std::uint8_t> svarint_of(std::int64_t value) {
  std::vector<std::uint8_t> out;
  put_svarint(out, value);
  return out;
}

using B = std::vector<std::uint8_t>;

TEST(Varint, KnownEncodings) {
  // The examples of the LEB128 / protobuf documentation.
  EXPECT_EQ(varint_of(0), B({0x00}));
  EXPECT_EQ(varint_of(1), B({0x01}));
  EXPECT_EQ(varint_of(127), B({0x7f}));
  EXPECT_EQ(varint_of(128), B({0x80, 0x01}));
  EXPECT_EQ(varint_of(300), B({0xac, 0x02}));
  EXPECT_EQ(varint_of(624485), B({0xe5, 0x8e, 0x26}));
  EXPECT_EQ(varint_of(std::numeric_limits<std::uint64_t>::max()),
            B({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}));
}

TEST(Varint, LengthGrowsEverySevenBits) {
  for (int bits = 1; bits <= 64; ++bits) {
    std::uint64_t largest =
        bits == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << bits) - 1;
    EXPECT_EQ(varint_of(largest).size(), static_cast<std::size_t>((bits + 6) / 7)) << bits;
  }
}

TEST(Varint, RoundTripsAtEveryBoundary) {
  std::vector<std::uint64_t> values = {0, std::numeric_limits<std::uint64_t>::max()};
  for (int shift = 7; shift < 64; shift += 7) {
    std::uint64_t boundary = std::uint64_t{1} << shift;
    values.insert(values.end(), {boundary - 1, boundary, boundary + 1});
  }
  values.push_back(std::uint64_t{1} << 63);
  std::vector<std::uint8_t> stream;
  for (auto v : values) put_varint(stream, v);
  ByteCursor cursor(stream, 0, "varints");
  for (auto v : values) EXPECT_EQ(cursor.varint(), v);
  EXPECT_EQ(cursor.remaining(), 0u);
}

TEST(Svarint, ZigzagKeepsSmallNegativesSmall) {
  // protobuf's zigzag table.
  EXPECT_EQ(svarint_of(0), B({0x00}));
  EXPECT_EQ(svarint_of(-1), B({0x01}));
  EXPECT_EQ(svarint_of(1), B({0x02}));
  EXPECT_EQ(svarint_of(-2), B({0x03}));
  EXPECT_EQ(svarint_of(-64), B({0x7f}));
  EXPECT_EQ(svarint_of(64), B({0x80, 0x01}));
  EXPECT_EQ(svarint_of(std::numeric_limits<std::int64_t>::max()), varint_of(0xfffffffffffffffe));
  EXPECT_EQ(svarint_of(std::numeric_limits<std::int64_t>::min()), varint_of(0xffffffffffffffff));
}

TEST(Svarint, RoundTrips) {
  const std::vector<std::int64_t> values = {0,
                                            1,
                                            -1,
                                            63,
                                            -64,
                                            64,
                                            -65,
                                            1 << 20,
                                            -(1 << 20),
                                            std::numeric_limits<std::int64_t>::max(),
                                            std::numeric_limits<std::int64_t>::min()};
  std::vector<std::uint8_t> stream;
  for (auto v : values) put_svarint(stream, v);
  ByteCursor cursor(stream, 0, "svarints");
  for (auto v : values) EXPECT_EQ(cursor.svarint(), v);
  EXPECT_EQ(cursor.remaining(), 0u);
}

TEST(Varint, FixedWidthWritersMatchTheCursor) {
  std::vector<std::uint8_t> out;
  put_u32le(out, 0x11223344);
  put_u64le(out, 0x0102030405060708);
  EXPECT_EQ(out, B({0x44, 0x33, 0x22, 0x11, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01}));
  ByteCursor cursor(out, 0, "fixed");
  EXPECT_EQ(cursor.u32(), 0x11223344u);
  EXPECT_EQ(cursor.u64(), 0x0102030405060708u);
}

TEST(Varint, TruncatedVarintIsAFormatErrorAtItsEnd) {
  const B data = {0x05, 0xff, 0x80};
  ByteCursor cursor(data, 40, "sidecar header");
  EXPECT_EQ(cursor.varint(), 5u);
  Error e = error_from([&] { cursor.varint(); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(e.message(), "byte 43: truncated sidecar header: needs 1 more bytes, only 0 left");
}

TEST(Varint, MoreThanTenBytesIsAFormatErrorAtItsStart) {
  B data = {0x00};
  data.insert(data.end(), 10, 0x80);
  data.push_back(0x00);
  ByteCursor cursor(data, 7, "sidecar header");
  cursor.u8();
  Error e = error_from([&] { cursor.varint(); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(e.message(), "byte 8: sidecar header: varint longer than 10 bytes");
}

TEST(Varint, ATenthByteBeyondSixtyFourBitsIsRefused) {
  // Nine continuation bytes carry 63 bits; the tenth may only add bit 63. Anything more does
  // not fit a uint64 and must not be silently dropped.
  B data(9, 0xff);
  data.push_back(0x01);
  EXPECT_EQ(ByteCursor(data, 0, "x").varint(), std::numeric_limits<std::uint64_t>::max());
  data.back() = 0x02;
  Error e = error_from([&] { ByteCursor(data, 20, "table").varint(); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(e.message(), "byte 20: table: varint does not fit 64 bits");
  data.back() = 0x7f;
  EXPECT_EQ(error_from([&] { ByteCursor(data, 0, "x").svarint(); }).kind(), ErrorKind::kFormat);
}

}  // namespace
}  // namespace symbolite
