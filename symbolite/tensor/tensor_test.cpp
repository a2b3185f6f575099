#include "symbolite/tensor/tensor.h"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "symbolite/support/machine_memory.h"

namespace symbolite::tensor {
namespace {

using Shape = std::vector<std::int64_t>;

// An owned Float storage holding 0, 1, 2, ... n-1.
Storage iota_floats(std::size_t n) {
  Storage s = Storage::allocate(n * sizeof(float));
  auto* f = reinterpret_cast<float*>(s.mutable_data());
  for (std::size_t i = 0; i < n; ++i) f[i] = static_cast<float>(i);
  return s;
}

// The message of the Error(kModel) that `body` must throw.
template <typename Body>
std::string model_error(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kModel) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(Tensor, EmptyIsContiguousAndZeroed) {
  Tensor t = Tensor::empty({2, 3}, DType::kInt64);
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.strides(), (Shape{3, 1}));
  EXPECT_EQ(t.nbytes(), 48u);
  EXPECT_TRUE(t.is_contiguous());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<std::int64_t>()[i], 0);
  t.mutable_data<std::int64_t>()[5] = 9;
  EXPECT_EQ(t.data<std::int64_t>()[5], 9);

  Tensor scalar = Tensor::empty({}, DType::kFloat64);
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(Tensor::empty({0, 5}, DType::kFloat32).numel(), 0);
  EXPECT_EQ(Tensor().numel(), 0);
}

// More bytes than the machine's memory and swap: refused before the allocator is asked (which
// may reserve them without committing, and the process be killed as it writes).
TEST(Tensor, LargerThanTheMachinesMemoryIsRefused) {
  try {
    (void)Tensor::uninitialized({std::int64_t{1} << 30, std::int64_t{1} << 15}, DType::kFloat64);
    FAIL() << "a 2^48-byte tensor was allocated";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLimit);
    EXPECT_EQ(e.message().rfind("can't allocate memory: you tried to allocate 281474976710656 "
                                "bytes for a Double tensor of sizes [1073741824, 32768]",
                                0),
              0u)
        << e.message();
  }
  EXPECT_GT(machine_memory_bytes(), std::size_t{1} << 20);
}

TEST(Tensor, TypedAccessChecksDType) {
  Tensor t = Tensor::empty({2}, DType::kFloat32);
  try {
    t.data<std::int64_t>();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUsage);
    EXPECT_EQ(e.message(), "tensor is Float, accessed as Long");
  }
}

TEST(Tensor, FromStorageViewAndContiguousCopy) {
  // The transpose of a 2x3 matrix, offset by one element: PyTorch's as_strided((3, 2), (1, 3), 1).
  Tensor t = Tensor::from_storage(iota_floats(7), DType::kFloat32, {3, 2}, {1, 3}, 1);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.data<float>()[0], 1.0f);
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.storage_offset(), 0);
  EXPECT_EQ(c.sizes(), (Shape{3, 2}));
  std::vector<float> got(c.data<float>(), c.data<float>() + 6);
  EXPECT_EQ(got, (std::vector<float>{1, 4, 2, 5, 3, 6}));

  // Broadcast-style zero strides are valid; size-1 dims do not break contiguity.
  Tensor expanded = Tensor::from_storage(iota_floats(2), DType::kFloat32, {3, 2}, {0, 1}, 0);
  Tensor expanded_copy = expanded.contiguous();
  got.assign(expanded_copy.data<float>(), expanded_copy.data<float>() + 6);
  EXPECT_EQ(got, (std::vector<float>{0, 1, 0, 1, 0, 1}));
  EXPECT_TRUE(
      Tensor::from_storage(iota_floats(3), DType::kFloat32, {1, 3}, {99, 1}, 0).is_contiguous());
  // A contiguous tensor is returned as is, sharing its storage.
  Tensor same = Tensor::from_storage(iota_floats(4), DType::kFloat32, {3}, {1}, 1);
  EXPECT_EQ(same.contiguous().raw_data(), same.raw_data());
}

TEST(Tensor, FromStorageAcceptsExactFitAndEmpty) {
  EXPECT_NO_THROW(Tensor::from_storage(iota_floats(6), DType::kFloat32, {2, 3}, {3, 1}, 0));
  EXPECT_NO_THROW(Tensor::from_storage(iota_floats(6), DType::kFloat32, {0, 3}, {3, 1}, 6));
  EXPECT_NO_THROW(Tensor::from_storage(Storage(), DType::kFloat32, {0}, {1}, 0));
  EXPECT_NO_THROW(Tensor::from_storage(iota_floats(1), DType::kFloat32, {}, {}, 0));
}

TEST(Tensor, FromStorageRejectsHostileGeometry) {
  auto storage = iota_floats(6);  // 24 bytes
  auto make = [&](Shape sizes, Shape strides, std::int64_t offset) {
    return [=] { Tensor::from_storage(storage, DType::kFloat32, sizes, strides, offset); };
  };
  EXPECT_EQ(model_error(make({2, 4}, {4, 1}, 0)),
            "invalid tensor (sizes [2, 4], strides [4, 1], storage offset 0, Float storage of 24 "
            "bytes): reaches element 7, past the storage's 6 elements");
  EXPECT_NE(model_error(make({2, 3}, {3, 1}, 1)).find("reaches element 6"), std::string::npos);
  EXPECT_NE(model_error(make({-1}, {1}, 0)).find("negative size at dimension 0"),
            std::string::npos);
  EXPECT_NE(model_error(make({2}, {-1}, 1)).find("negative stride"), std::string::npos);
  EXPECT_NE(model_error(make({2}, {1}, -1)).find("negative storage offset"), std::string::npos);
  EXPECT_NE(model_error(make({2}, {1}, 7)).find("offset past the end"), std::string::npos);
  EXPECT_NE(model_error(make({2, 3}, {1}, 0)).find("differ in length"), std::string::npos);
  const std::int64_t big = std::int64_t{1} << 40;
  EXPECT_NE(model_error(make({big, big}, {0, 0}, 0)).find("number of elements overflows"),
            std::string::npos);
  EXPECT_NE(model_error(make({3}, {std::numeric_limits<std::int64_t>::max()}, 0))
                .find("extent overflows"),
            std::string::npos);
  // Too big by the byte count of the element type, not the element count.
  Storage seven_bytes = Storage::allocate(7);
  EXPECT_NE(model_error([&] {
              Tensor::from_storage(seven_bytes, DType::kInt64, {1}, {1}, 0);
            }).find("past the storage's 0 elements"),
            std::string::npos);
}

TEST(Tensor, EmptyRejectsBadSizes) {
  EXPECT_NE(model_error([] {
              Tensor::empty({2, -3}, DType::kFloat32);
            }).find("negative size"),
            std::string::npos);
  const std::int64_t big = std::int64_t{1} << 62;
  EXPECT_NE(model_error([&] { Tensor::empty({big}, DType::kFloat32); }).find("overflows"),
            std::string::npos);
  EXPECT_NE(model_error([&] {
              Tensor::empty({big, 4}, DType::kUInt8);
            }).find("overflows int64"),
            std::string::npos);
}

TEST(Tensor, Helpers) {
  EXPECT_EQ(contiguous_strides(Shape{2, 0, 3}), (Shape{3, 3, 1}));
  EXPECT_EQ(contiguous_strides(Shape{}), Shape{});
  EXPECT_EQ(format_sizes(Shape{2, 3}), "[2, 3]");
  EXPECT_EQ(checked_numel(Shape{}), 1);
  EXPECT_EQ(checked_numel(Shape{4, 0}), 0);
  // Found by npy_reader_fuzz: an empty shape whose strides would overflow.
  const std::int64_t big = std::int64_t{1} << 40;
  EXPECT_THROW(checked_numel(Shape{0, big, big}), Error);
  EXPECT_THROW(Tensor::from_storage(Storage(), DType::kFloat32, {0, big, big}, {0, 0, 0}, 0),
               Error);
}

}  // namespace
}  // namespace symbolite::tensor
