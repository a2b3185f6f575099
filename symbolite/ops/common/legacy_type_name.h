// PyTorch's legacy tensor type names ("torch.FloatTensor"), which its argument checks
// (checkScalarTypes, checkAllSameType) print.
#pragma once

#include <string_view>

#include "symbolite/tensor/dtype.h"

namespace symbolite::ops {

// PyTorch's legacy type name, as checkScalarTypes prints it.
inline std::string_view legacy_type_name(tensor::DType dtype) {
  switch (dtype) {
    case tensor::DType::kFloat32:
      return "torch.FloatTensor";
    case tensor::DType::kFloat64:
      return "torch.DoubleTensor";
    case tensor::DType::kFloat16:
      return "torch.HalfTensor";
    case tensor::DType::kBFloat16:
      return "CPUBFloat16Type";
    case tensor::DType::kUInt8:
      return "torch.ByteTensor";
    case tensor::DType::kInt8:
      return "torch.CharTensor";
    case tensor::DType::kInt16:
      return "torch.ShortTensor";
    case tensor::DType::kInt32:
      return "torch.IntTensor";
    case tensor::DType::kInt64:
      return "torch.LongTensor";
    case tensor::DType::kBool:
      return "CPUBoolType";
  }
  return "unknown";
}

}  // namespace symbolite::ops
