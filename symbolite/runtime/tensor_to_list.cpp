#include "symbolite/runtime/tensor_to_list.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "symbolite/ops/registry/op_error.h"

namespace symbolite::runtime {
namespace {

using ops::IValue;
using tensor::DType;

template <typename T>
T load(const std::uint8_t* p) {  // storages may be unaligned views into the archive
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

float half_to_float(std::uint16_t h) {
  const bool negative = (h & 0x8000) != 0;
  const std::uint32_t exponent = (h >> 10) & 0x1f;
  const std::uint32_t mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0x1f) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {  // zero and subnormals
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else {
    magnitude = std::bit_cast<float>(((exponent + 112) << 23) | (mantissa << 13));
  }
  return negative ? -magnitude : magnitude;
}

// One element of `dtype` at `p`, as the IValue of the annotated element type.
IValue read_element(const std::uint8_t* p, DType dtype) {
  switch (dtype) {
    case DType::kInt64:
      return IValue(load<std::int64_t>(p));
    case DType::kBool:
      return IValue(load<std::uint8_t>(p) != 0);
    case DType::kFloat32:
      return IValue(static_cast<double>(load<float>(p)));
    case DType::kFloat64:
      return IValue(load<double>(p));
    case DType::kFloat16:
      return IValue(static_cast<double>(half_to_float(load<std::uint16_t>(p))));
    case DType::kBFloat16:
      return IValue(
          static_cast<double>(std::bit_cast<float>(std::uint32_t{load<std::uint16_t>(p)} << 16)));
    default:
      break;  // excluded by the type check
  }
  throw ops::OpError("RuntimeError", "tolist: unexpected tensor element type");
}

// The sub-list of dimension `d` at element `offset` (counted from `t`'s first element).
IValue to_list(const tensor::Tensor& t, std::int64_t offset, std::size_t d) {
  if (d == t.sizes().size()) {
    const auto element_size = static_cast<std::int64_t>(t.element_size());
    return read_element(t.raw_data() + offset * element_size, t.dtype());
  }
  const auto size = t.sizes()[d];
  ops::IValueList items;
  items.reserve(static_cast<std::size_t>(size));
  for (std::int64_t i = 0; i < size; ++i) {
    items.push_back(to_list(t, offset + i * t.strides()[d], d + 1));
  }
  return IValue::list(std::move(items));
}

bool is_floating(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16;
}

}  // namespace

IValue tensor_to_list(const tensor::Tensor& t, std::int64_t dim, std::int64_t element_type) {
  bool matches = false;
  switch (static_cast<ToListElement>(element_type)) {
    case ToListElement::kInt:
      matches = t.dtype() == DType::kInt64;
      break;
    case ToListElement::kFloat:
      matches = is_floating(t.dtype());
      break;
    case ToListElement::kBool:
      matches = t.dtype() == DType::kBool;
      break;
    case ToListElement::kComplex:
      matches = false;
      break;
    default:
      throw ops::OpError("RuntimeError",
                         "Unsupported element type for tolist; only int, float, "
                         "complex and bool are supported");
  }
  if (!matches) {
    throw ops::OpError("RuntimeError",
                       "Output annotation element type and runtime tensor element "
                       "type must match for tolist()");
  }
  if (dim != t.dim()) {
    throw ops::OpError("RuntimeError",
                       "Output annotation list dimension and runtime tensor "
                       "dimension must match for tolist()");
  }
  return to_list(t, 0, 0);
}

}  // namespace symbolite::runtime
