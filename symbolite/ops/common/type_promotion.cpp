#include "symbolite/ops/common/type_promotion.h"

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {

using tensor::DType;

bool is_floating(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16 ||
         d == DType::kBFloat16;
}

bool is_integral(DType d) {
  return d == DType::kInt64 || d == DType::kInt32 || d == DType::kInt16 || d == DType::kInt8 ||
         d == DType::kUInt8;
}

namespace {

// Index into PyTorch's promotion table (u1 i1 i2 i4 i8 f2 f4 f8 b1 bf).
int table_index(DType d) {
  switch (d) {
    case DType::kUInt8:
      return 0;
    case DType::kInt8:
      return 1;
    case DType::kInt16:
      return 2;
    case DType::kInt32:
      return 3;
    case DType::kInt64:
      return 4;
    case DType::kFloat16:
      return 5;
    case DType::kFloat32:
      return 6;
    case DType::kFloat64:
      return 7;
    case DType::kBool:
      return 8;
    case DType::kBFloat16:
      return 9;
  }
  return 0;
}

}  // namespace

DType promote_types(DType a, DType b) {
  constexpr DType u1 = DType::kUInt8, i1 = DType::kInt8, i2 = DType::kInt16, i4 = DType::kInt32,
                  i8 = DType::kInt64, f2 = DType::kFloat16, f4 = DType::kFloat32,
                  f8 = DType::kFloat64, b1 = DType::kBool, bf = DType::kBFloat16;
  // c10::promoteTypes without the complex and quantized rows.
  static constexpr DType table[10][10] = {
      /*        u1  i1  i2  i4  i8  f2  f4  f8  b1  bf */
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, bf, bf},
  };
  return table[table_index(a)][table_index(b)];
}

DType scalar_dtype(const IValue& s) {
  if (s.is(IValue::Kind::kBool)) return DType::kBool;
  if (s.is(IValue::Kind::kInt)) return DType::kInt64;
  if (s.is(IValue::Kind::kDouble)) return DType::kFloat64;
  fail(fmt::format("expected a number, got {}", s.kind_name()));
}

bool can_cast(DType from, DType to) {
  if (is_floating(from) && is_integral(to)) return false;
  if (from != DType::kBool && to == DType::kBool) return false;
  return true;
}

namespace {

std::optional<DType> promote(std::optional<DType> acc, DType d) {
  return acc ? promote_types(*acc, d) : d;
}

// c10's combine_categories(higher, lower), with nullopt for Undefined.
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (higher && is_floating(*higher)) return higher;
  if (higher && lower && (*higher == DType::kBool || is_floating(*lower))) {
    return promote_types(*higher, *lower);
  }
  if (higher) return higher;
  return lower;
}

}  // namespace

ResultType& ResultType::tensor(const tensor::Tensor& t) {
  if (t.dim() == 0) {
    zero_ = promote(zero_, t.dtype());
  } else {
    dim_ = promote(dim_, t.dtype());
  }
  return *this;
}

ResultType& ResultType::scalar(const IValue& s) {
  DType d = scalar_dtype(s);
  if (d == DType::kFloat64) d = DType::kFloat32;  // the default dtype
  wrapped_ = promote(wrapped_, d);
  return *this;
}

ResultType& ResultType::operand(const IValue& v) {
  return v.is(IValue::Kind::kTensor) ? tensor(v.to_tensor()) : scalar(v);
}

DType ResultType::result() const {
  return combine(dim_, combine(zero_, wrapped_)).value_or(DType::kFloat32);
}

void not_implemented(std::string_view kernel, DType dtype) {
  fail(fmt::format("\"{}\" not implemented for '{}'", kernel, tensor::scalar_type_name(dtype)));
}

tensor::Tensor wrapped_scalar(const IValue& scalar, const tensor::Tensor& other) {
  return scalar_tensor(scalar, ResultType().tensor(other).scalar(scalar).result());
}

}  // namespace symbolite::ops
