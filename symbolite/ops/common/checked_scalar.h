// Scalars converted to a tensor's element type with c10's checks (c10::checked_convert).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/integer_range.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/dtype.h"

namespace symbolite::ops {

// c10's name of T in "value cannot be converted to type <T> without overflow".
template <typename T>
const char* c10_type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64_t";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int";
  if constexpr (std::is_same_v<T, std::int16_t>) return "int16_t";
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8_t";
  if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8_t";
  return "bool";
}

// c10::checked_convert of a Scalar to T, as PyTorch's kernels take their Scalar arguments
// (Scalar::to<T>): out of T's range is an error (infinities and NaN are in range of the
// floating types, neither of the integers'; anything converts to bool); a fraction truncates.
template <typename T>
T checked_value(const IValue& v) {
  auto overflow = [] {
    fail(fmt::format("value cannot be converted to type {} without overflow", c10_type_name<T>()));
  };
  if constexpr (std::is_same_v<T, bool>) {
    return scalar_as<bool>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    double d = v.to_double();
    if (std::isfinite(d) &&
        (d < std::numeric_limits<T>::lowest() || d > std::numeric_limits<T>::max())) {
      overflow();
    }
    return static_cast<T>(d);
  } else {
    if (v.is(IValue::Kind::kInt)) {
      const std::int64_t i = v.to_int();
      constexpr auto kMax = static_cast<std::int64_t>(std::numeric_limits<T>::max());
      // An unsigned type takes negative ints down to -max, wrapping (uint8: -1 is 255), so
      // that a - b can be a + 255 * b; the signed types their own range.
      const std::int64_t lowest = std::is_unsigned_v<T>
                                      ? -kMax
                                      : static_cast<std::int64_t>(std::numeric_limits<T>::lowest());
      if (i < lowest || i > kMax) overflow();
      return static_cast<T>(i);
    }
    if (v.is(IValue::Kind::kBool)) return static_cast<T>(v.to_bool());
    // c10's bounds, and 2^63 for int64, which c10's lets through to an undefined cast.
    double d = v.to_double();
    if (!(fits_integer<T>(d) && d <= static_cast<double>(std::numeric_limits<T>::max()))) {
      overflow();
    }
    return static_cast<T>(d);
  }
}

// A 0-dim tensor of `dtype` holding checked_value of `s`, as at::scalar_tensor fills one.
inline tensor::Tensor checked_scalar_tensor(const IValue& s, tensor::DType dtype) {
  tensor::Tensor out = tensor::Tensor::uninitialized({}, dtype);
  dispatch_all(dtype, "fill_", [&](auto tag) {
    using T = decltype(tag);
    *out.mutable_data<T>() = checked_value<T>(s);
  });
  return out;
}

}  // namespace symbolite::ops
