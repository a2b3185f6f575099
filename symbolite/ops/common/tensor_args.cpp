#include "symbolite/ops/common/tensor_args.h"

#include <fmt/format.h>

#include <algorithm>

#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {

using tensor::DType;

IValue int_list_value(const std::vector<std::int64_t>& values) {
  return IValue::list(IValueList(values.begin(), values.end()));
}

std::vector<std::int64_t> int_list_arg(const IValue& v) {
  if (v.is(IValue::Kind::kInt)) return {v.to_int()};
  const IValueList& items = v.is(IValue::Kind::kTuple) ? v.to_tuple() : v.to_list();
  std::vector<std::int64_t> out;
  out.reserve(items.size());
  for (const auto& item : items) out.push_back(item.to_int());
  return out;
}

std::optional<std::vector<std::int64_t>> int_list_if(const IValue& v) {
  if (v.is(IValue::Kind::kInt)) return std::vector<std::int64_t>{v.to_int()};
  if (!v.is(IValue::Kind::kList) && !v.is(IValue::Kind::kTuple)) return std::nullopt;
  const IValueList& items = v.is(IValue::Kind::kTuple) ? v.to_tuple() : v.to_list();
  std::vector<std::int64_t> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    if (!item.is(IValue::Kind::kInt)) return std::nullopt;
    out.push_back(item.to_int());
  }
  return out;
}

std::optional<std::vector<std::int64_t>> optional_int_list_arg(const IValue& v) {
  if (v.is_none()) return std::nullopt;
  return int_list_arg(v);
}

std::vector<tensor::Tensor> tensor_list_arg(const IValue& v) {
  const IValueList& items = v.is(IValue::Kind::kTuple) ? v.to_tuple() : v.to_list();
  std::vector<tensor::Tensor> out;
  out.reserve(items.size());
  for (const auto& item : items) out.push_back(item.to_tensor());
  return out;
}

namespace {

struct CodeEntry {
  std::int64_t code;
  DType dtype;
};
constexpr CodeEntry kCodes[] = {
    {0, DType::kUInt8}, {1, DType::kInt8},      {2, DType::kInt16},   {3, DType::kInt32},
    {4, DType::kInt64}, {5, DType::kFloat16},   {6, DType::kFloat32}, {7, DType::kFloat64},
    {11, DType::kBool}, {15, DType::kBFloat16},
};

}  // namespace

std::optional<DType> dtype_arg(const IValue& v) {
  if (v.is_none()) return std::nullopt;
  std::int64_t code = v.to_int();
  for (const auto& e : kCodes) {
    if (e.code == code) return e.dtype;
  }
  fail(fmt::format("symbolite does not support tensors of ScalarType {}", code));
}

DType required_dtype_arg(const IValue& v) { return *dtype_arg(IValue(v.to_int())); }

std::int64_t scalar_type_code(DType dtype) {
  for (const auto& e : kCodes) {
    if (e.dtype == dtype) return e.code;
  }
  return -1;  // unreachable: every DType has a code
}

std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim) {
  std::int64_t n = std::max<std::int64_t>(ndim, 1);
  if (dim < -n || dim >= n) {
    throw OpError("IndexError",
                  fmt::format("Dimension out of range (expected to be in range of [{}, {}], but "
                              "got {})",
                              -n, n - 1, dim));
  }
  return dim < 0 ? dim + n : dim;
}

std::vector<bool> dim_mask(const std::vector<std::int64_t>& dims, std::int64_t ndim) {
  std::vector<bool> mask(static_cast<std::size_t>(std::max<std::int64_t>(ndim, 1)), false);
  if (dims.empty()) {
    std::fill(mask.begin(), mask.end(), true);
    return mask;
  }
  for (std::int64_t d : dims) {
    std::int64_t w = wrap_dim(d, ndim);
    if (mask[static_cast<std::size_t>(w)]) {
      fail(fmt::format("dim {} appears multiple times in the list of dims", w));
    }
    mask[static_cast<std::size_t>(w)] = true;
  }
  return mask;
}

}  // namespace symbolite::ops
