#include "symbolite/pickle/value.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "symbolite/support/error.h"

namespace symbolite::pickle {

Value Value::tuple(ValueList items) {
  return Value(Kind::kTuple, std::make_shared<ValueList>(std::move(items)));
}
Value Value::list(ValueList items) {
  return Value(Kind::kList, std::make_shared<ValueList>(std::move(items)));
}
Value Value::with_list_tag(ListTag tag) const {
  if (kind_ != Kind::kList) kind_error(Kind::kList);
  Value tagged = *this;
  tagged.list_tag_ = tag;
  return tagged;
}

Value Value::dict(DictItems items) {
  return Value(Kind::kDict, std::make_shared<DictItems>(std::move(items)));
}
Value Value::object(std::string type_name, Value state) {
  return Value(Kind::kObject,
               std::make_shared<Object>(Object{std::move(type_name), std::move(state)}));
}
Value Value::tensor(TensorRef tensor) {
  return Value(Kind::kTensor, std::make_shared<TensorRef>(std::move(tensor)));
}
Value Value::storage(StorageRef storage) {
  return Value(Kind::kStorage, std::make_shared<StorageRef>(std::move(storage)));
}
Value Value::global(std::string qualified_name) {
  return Value(Kind::kGlobal, std::make_shared<std::string>(std::move(qualified_name)));
}

std::string_view Value::kind_name(Kind kind) {
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
    case Kind::kTuple:
      return "tuple";
    case Kind::kList:
      return "list";
    case Kind::kDict:
      return "dict";
    case Kind::kObject:
      return "object";
    case Kind::kTensor:
      return "tensor";
    case Kind::kStorage:
      return "storage";
    case Kind::kGlobal:
      return "global";
    case Kind::kDevice:
      return "device";
  }
  return "?";
}

void Value::kind_error(Kind expected) const {
  throw Error(ErrorKind::kModel,
              fmt::format("expected {}, got {}", kind_name(expected), kind_name()));
}

bool Value::as_bool() const {
  if (kind_ != Kind::kBool) kind_error(Kind::kBool);
  return std::get<bool>(payload_);
}
std::int64_t Value::as_int() const {
  if (kind_ != Kind::kInt) kind_error(Kind::kInt);
  return std::get<std::int64_t>(payload_);
}
double Value::as_double() const {
  if (kind_ != Kind::kDouble) kind_error(Kind::kDouble);
  return std::get<double>(payload_);
}
std::string_view Value::as_string() const { return as_string_bytes().str(); }
std::string_view Value::as_device() const {
  if (kind_ != Kind::kDevice) kind_error(Kind::kDevice);
  return std::get<Bytes>(payload_).str();
}
const Bytes& Value::as_string_bytes() const {
  if (kind_ != Kind::kString) kind_error(Kind::kString);
  return std::get<Bytes>(payload_);
}
const ValueList& Value::as_tuple() const {
  if (kind_ != Kind::kTuple) kind_error(Kind::kTuple);
  return *std::get<std::shared_ptr<ValueList>>(payload_);
}
const ValueList& Value::as_list() const {
  if (kind_ != Kind::kList) kind_error(Kind::kList);
  return *std::get<std::shared_ptr<ValueList>>(payload_);
}
const ValueList& Value::as_sequence() const {
  if (kind_ != Kind::kTuple && kind_ != Kind::kList) kind_error(Kind::kTuple);
  return *std::get<std::shared_ptr<ValueList>>(payload_);
}
const DictItems& Value::as_dict() const {
  if (kind_ != Kind::kDict) kind_error(Kind::kDict);
  return *std::get<std::shared_ptr<DictItems>>(payload_);
}
const Object& Value::as_object() const {
  if (kind_ != Kind::kObject) kind_error(Kind::kObject);
  return *std::get<std::shared_ptr<Object>>(payload_);
}
const TensorRef& Value::as_tensor() const {
  if (kind_ != Kind::kTensor) kind_error(Kind::kTensor);
  return *std::get<std::shared_ptr<TensorRef>>(payload_);
}
const StorageRef& Value::as_storage() const {
  if (kind_ != Kind::kStorage) kind_error(Kind::kStorage);
  return *std::get<std::shared_ptr<StorageRef>>(payload_);
}
std::string_view Value::as_global() const {
  if (kind_ != Kind::kGlobal) kind_error(Kind::kGlobal);
  return *std::get<std::shared_ptr<std::string>>(payload_);
}

ValueList& Value::mutable_list() {
  if (kind_ != Kind::kList) kind_error(Kind::kList);
  return *std::get<std::shared_ptr<ValueList>>(payload_);
}
DictItems& Value::mutable_dict() {
  if (kind_ != Kind::kDict) kind_error(Kind::kDict);
  return *std::get<std::shared_ptr<DictItems>>(payload_);
}
Object& Value::mutable_object() {
  if (kind_ != Kind::kObject) kind_error(Kind::kObject);
  return *std::get<std::shared_ptr<Object>>(payload_);
}

const void* Value::identity() const {
  return std::visit(
      [](const auto& p) -> const void* {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, std::shared_ptr<ValueList>> ||
                      std::is_same_v<P, std::shared_ptr<DictItems>> ||
                      std::is_same_v<P, std::shared_ptr<Object>> ||
                      std::is_same_v<P, std::shared_ptr<TensorRef>>) {
          return p.get();
        } else {
          return nullptr;
        }
      },
      payload_);
}

namespace {

void append_debug(const Value& v, std::string& out, std::size_t limit, int depth) {
  if (out.size() > limit) return;
  if (depth > 32) {
    out += "...";
    return;
  }
  auto append_items = [&](const ValueList& items, char open, char close) {
    out += open;
    for (std::size_t i = 0; i < items.size() && out.size() <= limit; ++i) {
      if (i) out += ", ";
      append_debug(items[i], out, limit, depth + 1);
    }
    if (open == '(' && items.size() == 1) out += ',';
    out += close;
  };
  switch (v.kind()) {
    case Value::Kind::kNone:
      out += "None";
      break;
    case Value::Kind::kBool:
      out += v.as_bool() ? "True" : "False";
      break;
    case Value::Kind::kInt:
      out += std::to_string(v.as_int());
      break;
    case Value::Kind::kDouble: {
      // Python prints 2.0 for a float that fmt would print as "2".
      std::string number = fmt::format("{}", v.as_double());
      if (number.find_first_not_of("-0123456789") == std::string::npos) number += ".0";
      out += number;
      break;
    }
    case Value::Kind::kString:
      out += fmt::format("'{}'", v.as_string());
      break;
    case Value::Kind::kTuple:
      append_items(v.as_tuple(), '(', ')');
      break;
    case Value::Kind::kList:
      append_items(v.as_list(), '[', ']');
      break;
    case Value::Kind::kDict: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : v.as_dict()) {
        if (out.size() > limit) break;
        if (!first) out += ", ";
        first = false;
        append_debug(key, out, limit, depth + 1);
        out += ": ";
        append_debug(value, out, limit, depth + 1);
      }
      out += '}';
      break;
    }
    case Value::Kind::kObject:
      out += v.as_object().type_name;
      out += '(';
      append_debug(v.as_object().state, out, limit, depth + 1);
      out += ')';
      break;
    case Value::Kind::kTensor: {
      const auto& t = v.as_tensor();
      out += fmt::format("tensor({}, sizes=[{}])", t.storage.dtype, fmt::join(t.sizes, ", "));
      break;
    }
    case Value::Kind::kStorage:
      out += fmt::format("storage({}, key={})", v.as_storage().dtype, v.as_storage().key);
      break;
    case Value::Kind::kGlobal:
      out += v.as_global();
      break;
    case Value::Kind::kDevice:
      out += fmt::format("device(type='{}')", v.as_device());
      break;
  }
}

}  // namespace

std::string Value::debug_string(std::size_t limit) const {
  std::string out;
  append_debug(*this, out, limit, 0);
  if (out.size() > limit) {
    out.resize(limit);
    out += "...";
  }
  return out;
}

const Value* object_attribute(const Value& object, std::string_view name) {
  if (!object.is(Value::Kind::kObject)) return nullptr;
  const auto& state = object.as_object().state;
  if (!state.is(Value::Kind::kDict)) return nullptr;
  for (const auto& [key, value] : state.as_dict()) {
    if (key.is(Value::Kind::kString) && key.as_string() == name) return &value;
  }
  return nullptr;
}

}  // namespace symbolite::pickle
