// `DType`: the element types a tensor can hold, and their names in the formats that carry
// them: PyTorch's scalar-type names (which are also the pickled storage class names,
// `torch.FloatStorage` → "Float"), `torch.float32` style names, and NumPy descr strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace symbolite::tensor {

enum class DType {
  kFloat32,
  kFloat64,
  kInt64,
  kInt32,
  kInt16,
  kInt8,
  kUInt8,
  kBool,
  kFloat16,
  kBFloat16,
};

// Half-precision elements have no C++ type; these carry their bits for typed access.
struct Half {
  std::uint16_t bits;
};
struct BFloat16 {
  std::uint16_t bits;
};

// Bytes per element.
std::size_t element_size(DType dtype);

// PyTorch's ScalarType name, as in its messages and storage classes: "Float", "Long", ...
std::string_view scalar_type_name(DType dtype);
// As Python prints the dtype: "torch.float32", "torch.int64", ...
std::string_view torch_name(DType dtype);
// The C++ type name caffe2::TypeMeta prints in some of PyTorch's messages: "float",
// "long int", "unsigned char", ...
std::string_view type_meta_name(DType dtype);

// From a storage class name without "Storage" (`StorageRef::dtype`: "Float", "Long", "Half",
// ...); nullopt for anything else (complex, quantized, unknown).
std::optional<DType> dtype_from_storage_name(std::string_view name);

// From a NumPy descr string: "<f4", "<i8", "|b1", "|u1", ... Little-endian only; one-byte
// types also accept '<' and '='. nullopt for anything else (big-endian, structured, ...).
std::optional<DType> dtype_from_npy_descr(std::string_view descr);
// The descr NumPy writes for `dtype` ("<f4", "|b1"); nullopt for bfloat16, which NumPy lacks.
std::optional<std::string_view> npy_descr(DType dtype);

// The DType of a C++ element type, for typed access (`Tensor::data<float>()`).
template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kFloat32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kFloat64;
};
template <>
struct DTypeOf<std::int64_t> {
  static constexpr DType value = DType::kInt64;
};
template <>
struct DTypeOf<std::int32_t> {
  static constexpr DType value = DType::kInt32;
};
template <>
struct DTypeOf<std::int16_t> {
  static constexpr DType value = DType::kInt16;
};
template <>
struct DTypeOf<std::int8_t> {
  static constexpr DType value = DType::kInt8;
};
template <>
struct DTypeOf<std::uint8_t> {
  static constexpr DType value = DType::kUInt8;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::kBool;
};
template <>
struct DTypeOf<Half> {
  static constexpr DType value = DType::kFloat16;
};
template <>
struct DTypeOf<BFloat16> {
  static constexpr DType value = DType::kBFloat16;
};

template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

}  // namespace symbolite::tensor
