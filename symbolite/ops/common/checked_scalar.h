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

// c10::checked_convert of a Scalar to T: out of T's range is an error (infinities are in
// range of the floating types; anything converts to bool).
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
      std::int64_t i = v.to_int();
      if (i < static_cast<std::int64_t>(std::numeric_limits<T>::lowest()) ||
          i > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
        overflow();
      }
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

}  // namespace symbolite::ops
