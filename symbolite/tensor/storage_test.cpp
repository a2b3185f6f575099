#include "symbolite/tensor/storage.h"

#include <gtest/gtest.h>

#include "symbolite/support/error.h"

namespace symbolite::tensor {
namespace {

TEST(TensorStorage, AllocateIsZeroedAlignedAndWritable) {
  Storage s = Storage::allocate(24);
  ASSERT_EQ(s.nbytes(), 24u);
  EXPECT_FALSE(s.is_view());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(s.data()) % 64, 0u);
  for (std::size_t i = 0; i < 24; ++i) EXPECT_EQ(s.data()[i], 0);
  s.mutable_data()[3] = 7;
  Storage copy = s;  // a handle: same bytes
  EXPECT_EQ(copy.data()[3], 7);
  EXPECT_EQ(Storage::allocate(0).nbytes(), 0u);
}

TEST(TensorStorage, ViewSharesOwnerAndIsReadOnly) {
  Bytes bytes = Bytes::copy_of("abcdefgh");
  Storage s = Storage::view(bytes.slice(1, 4));
  EXPECT_TRUE(s.is_view());
  EXPECT_EQ(s.data(), bytes.data() + 1);
  EXPECT_EQ(s.nbytes(), 4u);
  EXPECT_EQ(s.bytes().owner(), bytes.owner());
  EXPECT_FALSE(s.is_aligned(DType::kInt16));  // odd address of an aligned buffer
  EXPECT_TRUE(s.is_aligned(DType::kUInt8));
  try {
    s.mutable_data();
    FAIL() << "a view must not be writable";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUsage);
  }
}

TEST(StorageTest, UnsharedOnlyWhileOneHandleOwnsTheBuffer) {
  Storage s = Storage::allocate_uninitialized(16);
  EXPECT_TRUE(s.is_unshared());
  {
    Storage copy = s;  // a second tensor over the same buffer
    EXPECT_FALSE(s.is_unshared());
    EXPECT_FALSE(copy.is_unshared());
  }
  EXPECT_TRUE(s.is_unshared());
  Bytes mapped = Bytes::from_vector(std::vector<std::uint8_t>(8, 1));
  EXPECT_FALSE(Storage::view(mapped).is_unshared());  // views are never written
}

}  // namespace
}  // namespace symbolite::tensor
