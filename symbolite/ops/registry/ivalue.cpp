#include "symbolite/ops/registry/ivalue.h"

#include <cmath>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::ops {

IValue IValue::string(std::string s) {
  IValue v;
  v.kind_ = Kind::kString;
  v.v_ = std::make_shared<const std::string>(std::move(s));
  return v;
}

IValue IValue::list(IValueList items) {
  IValue v;
  v.kind_ = Kind::kList;
  v.v_ = std::make_shared<IValueList>(std::move(items));
  return v;
}

IValue IValue::tuple(IValueList items) {
  IValue v;
  v.kind_ = Kind::kTuple;
  v.v_ = std::make_shared<IValueList>(std::move(items));
  return v;
}

IValue IValue::dict(std::shared_ptr<Dict> d) {
  IValue v;
  v.kind_ = Kind::kDict;
  v.v_ = std::move(d);
  return v;
}

IValue IValue::object(std::shared_ptr<Object> o) {
  IValue v;
  v.kind_ = Kind::kObject;
  v.v_ = std::move(o);
  return v;
}

IValue IValue::device(std::string name) {
  IValue v = string(std::move(name));
  v.kind_ = Kind::kDevice;
  return v;
}

std::string_view IValue::kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kDouble:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kTensor:
      return "Tensor";
    case Kind::kList:
      return "list";
    case Kind::kTuple:
      return "tuple";
    case Kind::kDict:
      return "dict";
    case Kind::kObject:
      return "object";
    case Kind::kDevice:
      return "Device";
  }
  return "?";
}

void IValue::kind_error(Kind expected) const {
  throw Error(ErrorKind::kModel,
              fmt::format("expected {}, got {}", kind_name(expected), kind_name()));
}

bool IValue::to_bool() const {
  if (kind_ != Kind::kBool) kind_error(Kind::kBool);
  return std::get<bool>(v_);
}
std::int64_t IValue::to_int() const {
  if (kind_ == Kind::kBool) return std::get<bool>(v_) ? 1 : 0;
  if (kind_ != Kind::kInt) kind_error(Kind::kInt);
  return std::get<std::int64_t>(v_);
}
double IValue::to_double() const {
  if (kind_ == Kind::kInt) return static_cast<double>(std::get<std::int64_t>(v_));
  if (kind_ == Kind::kBool) return std::get<bool>(v_) ? 1.0 : 0.0;
  if (kind_ != Kind::kDouble) kind_error(Kind::kDouble);
  return std::get<double>(v_);
}
const std::string& IValue::to_string() const {
  if (kind_ != Kind::kString) kind_error(Kind::kString);
  return *std::get<std::shared_ptr<const std::string>>(v_);
}
const tensor::Tensor& IValue::to_tensor() const {
  if (kind_ != Kind::kTensor) kind_error(Kind::kTensor);
  return *std::get<std::shared_ptr<tensor::Tensor>>(v_);
}
void IValue::set_tensor(tensor::Tensor t) const {
  if (kind_ != Kind::kTensor) kind_error(Kind::kTensor);
  *std::get<std::shared_ptr<tensor::Tensor>>(v_) = std::move(t);
}
bool IValue::holds_unshared_tensor() const {
  if (kind_ != Kind::kTensor) return false;
  const auto& t = std::get<std::shared_ptr<tensor::Tensor>>(v_);
  return t.use_count() == 1 && t->storage().is_unshared();
}
IValueList& IValue::to_list() const {
  if (kind_ != Kind::kList) kind_error(Kind::kList);
  return *std::get<std::shared_ptr<IValueList>>(v_);
}
const IValueList& IValue::to_tuple() const {
  if (kind_ != Kind::kTuple) kind_error(Kind::kTuple);
  return *std::get<std::shared_ptr<IValueList>>(v_);
}
Dict& IValue::to_dict() const {
  if (kind_ != Kind::kDict) kind_error(Kind::kDict);
  return *std::get<std::shared_ptr<Dict>>(v_);
}
Object& IValue::to_object() const {
  if (kind_ != Kind::kObject) kind_error(Kind::kObject);
  return *std::get<std::shared_ptr<Object>>(v_);
}
const std::string& IValue::to_device() const {
  if (kind_ != Kind::kDevice) kind_error(Kind::kDevice);
  return *std::get<std::shared_ptr<const std::string>>(v_);
}

const void* IValue::identity() const {
  switch (kind_) {
    case Kind::kList:
    case Kind::kTuple:
      return std::get<std::shared_ptr<IValueList>>(v_).get();
    case Kind::kDict:
      return std::get<std::shared_ptr<Dict>>(v_).get();
    case Kind::kObject:
      return std::get<std::shared_ptr<Object>>(v_).get();
    case Kind::kTensor:
      return std::get<std::shared_ptr<tensor::Tensor>>(v_).get();
    default:
      return nullptr;
  }
}

namespace {

// Python's repr of a float: shortest round-trip digits, always with a '.' or exponent.
// A float as TorchScript's str(), print and format show it (PyTorch 1.13's IValue printing,
// tests/fixtures/ops/str_cases.json): a whole number that fits int64 as that integer and a
// point ("3.", "0." for -0.0 too), anything else with 17 significant digits — str(0.1) is
// "0.10000000000000001", not Python's "0.1".
std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  constexpr double kInt64Limit = 9223372036854775808.0;  // 2^63
  if (d == std::trunc(d) && d >= -kInt64Limit && d < kInt64Limit) {
    return fmt::format("{}.", static_cast<std::int64_t>(d));
  }
  return fmt::format("{:.17g}", d);
}

}  // namespace

std::string IValue::repr() const {
  switch (kind_) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return to_bool() ? "True" : "False";
    case Kind::kInt:
      return std::to_string(to_int());
    case Kind::kDouble:
      return float_repr(to_double());
    case Kind::kString:
      return "'" + to_string() + "'";
    case Kind::kDevice:
      return to_device();
    case Kind::kTensor: {
      const auto& t = to_tensor();
      return fmt::format("Tensor(dtype={}, sizes={})", tensor::torch_name(t.dtype()),
                         tensor::format_sizes(t.sizes()));
    }
    case Kind::kList:
    case Kind::kTuple: {
      const auto& items = kind_ == Kind::kList ? to_list() : to_tuple();
      std::string out = kind_ == Kind::kList ? "[" : "(";
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += items[i].repr();
      }
      if (kind_ == Kind::kTuple && items.size() == 1) out += ",";
      out += kind_ == Kind::kList ? "]" : ")";
      return out;
    }
    case Kind::kDict: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, v] : to_dict().items) {
        if (!first) out += ", ";
        first = false;
        out += k.repr() + ": " + v.repr();
      }
      return out + "}";
    }
    case Kind::kObject:
      return "<" + to_object().type_name + " object>";
  }
  return "?";
}

std::string IValue::str() const { return kind_ == Kind::kString ? to_string() : repr(); }

bool equal_scalars(const IValue& a, const IValue& b) {
  using K = IValue::Kind;
  if (a.is(K::kString) && b.is(K::kString)) return a.to_string() == b.to_string();
  bool a_num = a.is(K::kInt) || a.is(K::kDouble) || a.is(K::kBool);
  bool b_num = b.is(K::kInt) || b.is(K::kDouble) || b.is(K::kBool);
  if (a_num && b_num) {
    if (a.is(K::kDouble) || b.is(K::kDouble)) return a.to_double() == b.to_double();
    return a.to_int() == b.to_int();
  }
  if (a.is_none() && b.is_none()) return true;
  return a.identity() != nullptr && a.identity() == b.identity();
}

std::ptrdiff_t Dict::find(const IValue& key) const {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (equal_scalars(items[i].first, key)) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

}  // namespace symbolite::ops
