// A tensor written into a golden JSON file by the fixture generators' `tensor_json`:
// {"dtype": "float32", "shape": [2, 3], "data": [...]} (data flattened in row-major order).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/tensor/tensor.h"

namespace symbolite::testing {

template <typename T>
void fill_from_json(const tensor::Tensor& t, const nlohmann::json& data) {
  for (std::size_t i = 0; i < data.size(); ++i) t.mutable_data<T>()[i] = data[i].get<T>();
}

inline tensor::Tensor tensor_from_json(const nlohmann::json& j) {
  using tensor::DType;
  static const std::map<std::string, DType> dtypes = {
      {"float32", DType::kFloat32}, {"float64", DType::kFloat64}, {"int64", DType::kInt64},
      {"int32", DType::kInt32},     {"uint8", DType::kUInt8},     {"bool", DType::kBool}};
  const DType dtype = dtypes.at(j.at("dtype").get<std::string>());
  auto t = tensor::Tensor::empty(j.at("shape").get<std::vector<std::int64_t>>(), dtype);
  const nlohmann::json& data = j.at("data");
  switch (dtype) {
    case DType::kFloat32:
      fill_from_json<float>(t, data);
      break;
    case DType::kFloat64:
      fill_from_json<double>(t, data);
      break;
    case DType::kInt64:
      fill_from_json<std::int64_t>(t, data);
      break;
    case DType::kInt32:
      fill_from_json<std::int32_t>(t, data);
      break;
    case DType::kUInt8:
      fill_from_json<std::uint8_t>(t, data);
      break;
    case DType::kBool:
      fill_from_json<bool>(t, data);
      break;
    default:
      ADD_FAILURE() << "no such dtype in a golden";
  }
  return t;
}

}  // namespace symbolite::testing
