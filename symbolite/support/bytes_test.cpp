// Bytes: an immutable byte range whose owner every copy and slice keeps alive.
#include "symbolite/support/bytes.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support/error_from.h"

namespace symbolite {
namespace {

using testing::error_from;

TEST(Bytes, DefaultIsEmpty) {
  Bytes b;
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.str(), "");
  EXPECT_EQ(b.owner(), nullptr);
}

TEST(Bytes, FromVectorTakesTheBufferWithoutCopying) {
  std::vector<std::uint8_t> buffer = {'a', 'b', 'c'};
  const std::uint8_t* original = buffer.data();
  Bytes b = Bytes::from_vector(std::move(buffer));
  EXPECT_EQ(b.data(), original);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.str(), "abc");
  EXPECT_EQ(b.span().size(), 3u);
  EXPECT_NE(b.owner(), nullptr);
}

TEST(Bytes, CopyOfCopiesTheText) {
  std::string text("x\0y", 3);
  Bytes b = Bytes::copy_of(text);
  EXPECT_NE(static_cast<const void*>(b.data()), static_cast<const void*>(text.data()));
  text[0] = 'z';
  EXPECT_EQ(b.str(), std::string_view("x\0y", 3));
}

TEST(Bytes, SliceViewsTheSameMemoryAndSharesTheOwner) {
  Bytes b = Bytes::copy_of("0123456789");
  Bytes s = b.slice(2, 5);
  EXPECT_EQ(s.str(), "23456");
  EXPECT_EQ(s.data(), b.data() + 2);
  EXPECT_EQ(s.owner(), b.owner());
  Bytes inner = s.slice(1, 2);
  EXPECT_EQ(inner.str(), "34");
  EXPECT_EQ(inner.data(), b.data() + 3);
  EXPECT_TRUE(b.slice(10, 0).empty());
  EXPECT_EQ(b.slice(0, 10).str(), b.str());
}

TEST(Bytes, SlicesKeepTheMemoryAliveAfterTheOriginalIsGone) {
  bool released = false;
  std::vector<std::uint8_t> storage = {1, 2, 3, 4};
  Bytes slice;
  {
    std::shared_ptr<const void> owner(storage.data(),
                                      [&released](const void*) { released = true; });
    Bytes whole(owner, storage.data(), storage.size());
    owner.reset();
    slice = whole.slice(1, 2);
    // NOLINTNEXTLINE(performance-unnecessary-copy-initialization): a copy is a holder too
    const Bytes copy = whole;
    EXPECT_EQ(copy.owner(), whole.owner());
    EXPECT_FALSE(released);
  }
  EXPECT_FALSE(released);
  EXPECT_EQ(slice.span()[0], 2u);
  slice = Bytes();
  EXPECT_TRUE(released);
}

TEST(Bytes, SliceOutsideTheRangeIsRefused) {
  Bytes b = Bytes::copy_of("abcd");
  for (auto [offset, length] : std::vector<std::pair<std::size_t, std::size_t>>{
           {5, 0},
           {0, 5},
           {3, 2},
           {1, std::numeric_limits<std::size_t>::max()},
           {std::numeric_limits<std::size_t>::max(), 2}}) {
    Error e = error_from([&b, offset = offset, length = length] { b.slice(offset, length); });
    EXPECT_EQ(e.kind(), ErrorKind::kInternal) << offset << "+" << length;
    EXPECT_EQ(e.message(), "Bytes::slice out of range");
  }
}

}  // namespace
}  // namespace symbolite
