#include "symbolite/tensor/dtype.h"

#include <array>

namespace symbolite::tensor {
namespace {

struct DTypeInfo {
  DType dtype;
  std::size_t size;
  std::string_view scalar_name;
  std::string_view torch_name;
  std::string_view npy_descr;  // empty: NumPy has no such type
  std::string_view type_meta_name;
};

constexpr std::array<DTypeInfo, 10> kInfos{{
    {DType::kFloat32, 4, "Float", "torch.float32", "<f4", "float"},
    {DType::kFloat64, 8, "Double", "torch.float64", "<f8", "double"},
    {DType::kInt64, 8, "Long", "torch.int64", "<i8", "long int"},
    {DType::kInt32, 4, "Int", "torch.int32", "<i4", "int"},
    {DType::kInt16, 2, "Short", "torch.int16", "<i2", "short int"},
    {DType::kInt8, 1, "Char", "torch.int8", "|i1", "signed char"},
    {DType::kUInt8, 1, "Byte", "torch.uint8", "|u1", "unsigned char"},
    {DType::kBool, 1, "Bool", "torch.bool", "|b1", "bool"},
    {DType::kFloat16, 2, "Half", "torch.float16", "<f2", "c10::Half"},
    {DType::kBFloat16, 2, "BFloat16", "torch.bfloat16", "", "c10::BFloat16"},
}};

const DTypeInfo& info(DType dtype) {
  // The table is in enum order.
  return kInfos[static_cast<std::size_t>(dtype)];
}

}  // namespace

std::size_t element_size(DType dtype) { return info(dtype).size; }
std::string_view scalar_type_name(DType dtype) { return info(dtype).scalar_name; }
std::string_view torch_name(DType dtype) { return info(dtype).torch_name; }
std::string_view type_meta_name(DType dtype) { return info(dtype).type_meta_name; }

std::optional<DType> dtype_from_storage_name(std::string_view name) {
  for (const auto& i : kInfos) {
    if (i.scalar_name == name) return i.dtype;
  }
  return std::nullopt;
}

std::optional<DType> dtype_from_npy_descr(std::string_view descr) {
  if (descr.size() < 3) return std::nullopt;
  char order = descr[0];
  std::string_view kind_size = descr.substr(1);
  for (const auto& i : kInfos) {
    if (i.npy_descr.empty() || i.npy_descr.substr(1) != kind_size) continue;
    // Byte order is meaningless for one-byte types; NumPy writes '|' but reads any.
    if (order == '<' || (i.size == 1 && (order == '|' || order == '='))) return i.dtype;
  }
  return std::nullopt;
}

std::optional<std::string_view> npy_descr(DType dtype) {
  if (info(dtype).npy_descr.empty()) return std::nullopt;
  return info(dtype).npy_descr;
}

}  // namespace symbolite::tensor
