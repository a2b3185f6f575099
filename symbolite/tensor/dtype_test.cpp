#include "symbolite/tensor/dtype.h"

#include <gtest/gtest.h>

namespace symbolite::tensor {
namespace {

TEST(DType, SizesAndNames) {
  EXPECT_EQ(element_size(DType::kFloat32), 4u);
  EXPECT_EQ(element_size(DType::kFloat64), 8u);
  EXPECT_EQ(element_size(DType::kInt64), 8u);
  EXPECT_EQ(element_size(DType::kBool), 1u);
  EXPECT_EQ(element_size(DType::kBFloat16), 2u);
  EXPECT_EQ(scalar_type_name(DType::kInt64), "Long");
  EXPECT_EQ(scalar_type_name(DType::kInt8), "Char");
  EXPECT_EQ(scalar_type_name(DType::kUInt8), "Byte");
  EXPECT_EQ(torch_name(DType::kFloat32), "torch.float32");
  EXPECT_EQ(torch_name(DType::kBFloat16), "torch.bfloat16");
  EXPECT_EQ(sizeof(Half), 2u);
}

TEST(DType, StorageNamesRoundTrip) {
  // The stems of the storage classes PyTorch pickles (torch.FloatStorage, ...).
  for (auto name :
       {"Float", "Double", "Long", "Int", "Short", "Char", "Byte", "Bool", "Half", "BFloat16"}) {
    auto dtype = dtype_from_storage_name(name);
    ASSERT_TRUE(dtype) << name;
    EXPECT_EQ(scalar_type_name(*dtype), name);
  }
  EXPECT_EQ(dtype_from_storage_name("Long"), DType::kInt64);
  EXPECT_FALSE(dtype_from_storage_name("ComplexFloat"));
  EXPECT_FALSE(dtype_from_storage_name("FloatStorage"));
  EXPECT_FALSE(dtype_from_storage_name(""));
}

TEST(DType, NpyDescr) {
  EXPECT_EQ(dtype_from_npy_descr("<f4"), DType::kFloat32);
  EXPECT_EQ(dtype_from_npy_descr("<f8"), DType::kFloat64);
  EXPECT_EQ(dtype_from_npy_descr("<i8"), DType::kInt64);
  EXPECT_EQ(dtype_from_npy_descr("<f2"), DType::kFloat16);
  EXPECT_EQ(dtype_from_npy_descr("|b1"), DType::kBool);
  EXPECT_EQ(dtype_from_npy_descr("|u1"), DType::kUInt8);
  EXPECT_EQ(dtype_from_npy_descr("|i1"), DType::kInt8);
  EXPECT_EQ(dtype_from_npy_descr("<u1"), DType::kUInt8);  // byte order moot for one byte
  EXPECT_FALSE(dtype_from_npy_descr(">f4"));
  EXPECT_FALSE(dtype_from_npy_descr("|f4"));
  EXPECT_FALSE(dtype_from_npy_descr("<c8"));
  EXPECT_FALSE(dtype_from_npy_descr("<u4"));
  EXPECT_FALSE(dtype_from_npy_descr("<f"));
  EXPECT_FALSE(dtype_from_npy_descr("<f44"));
  EXPECT_EQ(npy_descr(DType::kInt32), "<i4");
  EXPECT_EQ(npy_descr(DType::kBool), "|b1");
  EXPECT_FALSE(npy_descr(DType::kBFloat16));
  EXPECT_EQ(dtype_of<float>, DType::kFloat32);
  EXPECT_EQ(dtype_of<std::int64_t>, DType::kInt64);
}

}  // namespace
}  // namespace symbolite::tensor
