// ByteCursor: little-endian reads that refuse to step past the end, with errors naming the
// file offset and the structure being read.
#include "symbolite/support/byte_cursor.h"

#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support/error_from.h"

namespace symbolite {
namespace {

using testing::error_from;

TEST(ByteCursor, ReadsLittleEndianIntegersAndAdvances) {
  const std::vector<std::uint8_t> data = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                                          0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};
  ByteCursor cursor(data, 100, "record");
  EXPECT_EQ(cursor.offset(), 100u);
  EXPECT_EQ(cursor.u8(), 0x01u);
  EXPECT_EQ(cursor.u16(), 0x0302u);
  EXPECT_EQ(cursor.u32(), 0x07060504u);
  EXPECT_EQ(cursor.u64(), 0x0f0e0d0c0b0a0908u);
  EXPECT_EQ(cursor.offset(), 115u);
  EXPECT_EQ(cursor.remaining(), 0u);
}

TEST(ByteCursor, HighBitsAreNotSignExtended) {
  const std::vector<std::uint8_t> data(8, 0xff);
  EXPECT_EQ(ByteCursor(data, 0, "x").u16(), 0xffffu);
  EXPECT_EQ(ByteCursor(data, 0, "x").u32(), 0xffffffffu);
  EXPECT_EQ(ByteCursor(data, 0, "x").u64(), std::numeric_limits<std::uint64_t>::max());
}

TEST(ByteCursor, TakeIsAViewIntoTheDataAndSkipAdvances) {
  const std::vector<std::uint8_t> data = {10, 11, 12, 13, 14};
  ByteCursor cursor(data, 0, "run");
  cursor.skip(1);
  auto run = cursor.take(3);
  ASSERT_EQ(run.size(), 3u);
  EXPECT_EQ(run.data(), data.data() + 1);
  EXPECT_EQ(run[2], 13u);
  EXPECT_EQ(cursor.remaining(), 1u);
  EXPECT_TRUE(cursor.take(0).empty());
  EXPECT_EQ(cursor.u8(), 14u);
}

TEST(ByteCursor, ReadingPastTheEndIsAFormatErrorNamingTheFileOffset) {
  const std::vector<std::uint8_t> data = {1, 2, 3};
  ByteCursor cursor(data, 1000, "local file header");
  cursor.u16();
  Error e = error_from([&] { cursor.u32(); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(e.message(), "byte 1002: truncated local file header: needs 4 more bytes, only 1 left");
  // The failed read consumed nothing: the last byte is still there.
  EXPECT_EQ(cursor.offset(), 1002u);
  EXPECT_EQ(cursor.remaining(), 1u);
  EXPECT_EQ(cursor.u8(), 3u);
  EXPECT_EQ(error_from([&] { cursor.u8(); }).message(),
            "byte 1003: truncated local file header: needs 1 more bytes, only 0 left");
}

TEST(ByteCursor, EveryReadIsBoundsChecked) {
  const std::vector<std::uint8_t> data = {1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(error_from([&] { ByteCursor(data, 0, "x").u64(); }).kind(), ErrorKind::kFormat);
  EXPECT_EQ(error_from([&] { ByteCursor({}, 0, "x").u8(); }).kind(), ErrorKind::kFormat);
  EXPECT_EQ(error_from([&] { ByteCursor(std::span(data).first(1), 0, "x").u16(); }).kind(),
            ErrorKind::kFormat);
  EXPECT_EQ(error_from([&] { ByteCursor(std::span(data).first(3), 0, "x").u32(); }).kind(),
            ErrorKind::kFormat);
  EXPECT_EQ(error_from([&] { ByteCursor(data, 0, "x").skip(8); }).kind(), ErrorKind::kFormat);
}

TEST(ByteCursor, AHugeLengthDoesNotWrapAround) {
  const std::vector<std::uint8_t> data = {1, 2, 3, 4};
  ByteCursor cursor(data, 0, "entry");
  cursor.u8();
  Error e = error_from([&] { cursor.take(std::numeric_limits<std::size_t>::max()); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(cursor.remaining(), 3u);
}

TEST(LoadLittleEndian, MatchesTheCursor) {
  const std::uint8_t p[8] = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
  EXPECT_EQ(load_u16le(p), 0x7788u);
  EXPECT_EQ(load_u32le(p), 0x55667788u);
  EXPECT_EQ(load_u64le(p), 0x1122334455667788u);
}

}  // namespace
}  // namespace symbolite
