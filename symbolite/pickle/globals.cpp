#include "symbolite/pickle/globals.h"

#include <cctype>

#include <array>
#include <string>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::pickle {
namespace {

// The storage classes PyTorch 1.13 can name: c10 ScalarType names + "Storage".
constexpr std::array<std::string_view, 18> kStorageDtypes = {
    "Byte",  "Char",   "Short",       "Int",          "Long",          "Half",
    "Float", "Double", "ComplexHalf", "ComplexFloat", "ComplexDouble", "Bool",
    "QInt8", "QUInt8", "QInt32",      "BFloat16",     "QUInt4x2",      "QUInt2x4",
};

[[noreturn]] void bad_args(std::string_view function, std::string_view why) {
  throw Error(ErrorKind::kModel, fmt::format("{}: {}", function, why));
}

const ValueList& tuple_args(std::string_view function, const Value& args) {
  if (!args.is(Value::Kind::kTuple)) {
    bad_args(function, fmt::format("arguments must be a tuple, got {}", args.kind_name()));
  }
  return args.as_tuple();
}

void expect_kind(std::string_view function, std::string_view what, const Value& value,
                 Value::Kind kind) {
  if (!value.is(kind)) {
    bad_args(function,
             fmt::format("{} must be {}, got {}", what, Value::kind_name(kind), value.kind_name()));
  }
}

std::int64_t non_negative(std::string_view function, std::string_view what, const Value& value) {
  expect_kind(function, what, value, Value::Kind::kInt);
  if (value.as_int() < 0) bad_args(function, fmt::format("{} is negative", what));
  return value.as_int();
}

std::vector<std::int64_t> int_tuple(std::string_view function, std::string_view what,
                                    const Value& value) {
  expect_kind(function, what, value, Value::Kind::kTuple);
  std::vector<std::int64_t> out;
  out.reserve(value.as_tuple().size());
  for (const Value& item : value.as_tuple()) out.push_back(non_negative(function, what, item));
  return out;
}

// build_intlist((list,)) -> list, after checking the items have the promised kind.
Value build_list(std::string_view function, const ValueList& args) {
  if (args.size() != 1) bad_args(function, fmt::format("takes 1 argument, got {}", args.size()));
  expect_kind(function, "the argument", args[0], Value::Kind::kList);
  Value::Kind item_kind = Value::Kind::kTensor;  // build_tensorlist
  ListTag tag = ListTag::kTensor;
  if (function.ends_with(".build_intlist")) item_kind = Value::Kind::kInt, tag = ListTag::kInt;
  if (function.ends_with(".build_doublelist")) {
    item_kind = Value::Kind::kDouble, tag = ListTag::kDouble;
  }
  if (function.ends_with(".build_boollist")) item_kind = Value::Kind::kBool, tag = ListTag::kBool;
  for (const Value& item : args[0].as_list()) expect_kind(function, "an item", item, item_kind);
  return args[0].with_list_tag(tag);
}

// restore_type_tag((value, type_str)) -> value: the type string only matters to TorchScript.
Value restore_type_tag(std::string_view function, const ValueList& args) {
  if (args.size() != 2) bad_args(function, fmt::format("takes 2 arguments, got {}", args.size()));
  expect_kind(function, "the type tag", args[1], Value::Kind::kString);
  return args[0];
}

// torch.device((name,)) -> a device: PyTorch's unpickler takes the one string as it is.
Value device(std::string_view function, const ValueList& args) {
  if (args.size() != 1) bad_args(function, fmt::format("takes 1 argument, got {}", args.size()));
  expect_kind(function, "the device", args[0], Value::Kind::kString);
  return Value::device(args[0].as_string());
}

// _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks
// [, metadata]).
Value rebuild_tensor(std::string_view function, const ValueList& args) {
  if (args.size() != 6 && args.size() != 7) {
    bad_args(function, fmt::format("takes 6 or 7 arguments, got {}", args.size()));
  }
  expect_kind(function, "the storage", args[0], Value::Kind::kStorage);
  TensorRef tensor;
  tensor.storage = args[0].as_storage();
  tensor.storage_offset = non_negative(function, "storage_offset", args[1]);
  tensor.sizes = int_tuple(function, "a size", args[2]);
  tensor.strides = int_tuple(function, "a stride", args[3]);
  if (tensor.sizes.size() != tensor.strides.size()) {
    bad_args(function,
             fmt::format("{} sizes but {} strides", tensor.sizes.size(), tensor.strides.size()));
  }
  expect_kind(function, "requires_grad", args[4], Value::Kind::kBool);
  tensor.requires_grad = args[4].as_bool();
  // Backward hooks are Python callables and would be refused as globals; only the empty
  // OrderedDict PyTorch writes can reach here.
  expect_kind(function, "backward_hooks", args[5], Value::Kind::kDict);
  if (!args[5].as_dict().empty()) bad_args(function, "backward_hooks must be empty");
  // Metadata holds math bits ({'conj': True}) that change the values; TensorRef has no
  // room for them, so refuse rather than silently read wrong numbers.
  if (args.size() == 7 && !args[6].is_none()) {
    expect_kind(function, "metadata", args[6], Value::Kind::kDict);
    for (const auto& [key, value] : args[6].as_dict()) {
      if (!value.is(Value::Kind::kBool) || value.as_bool()) {
        throw Error(ErrorKind::kUnsupported,
                    fmt::format("{}: tensor metadata {}: {} is not supported", function,
                                key.debug_string(40), value.debug_string(40)));
      }
    }
  }
  return Value::tensor(std::move(tensor));
}

}  // namespace

std::optional<std::string_view> storage_dtype(std::string_view qualified_name) {
  constexpr std::string_view kPrefix = "torch.";
  constexpr std::string_view kSuffix = "Storage";
  if (!qualified_name.starts_with(kPrefix) || !qualified_name.ends_with(kSuffix)) {
    return std::nullopt;
  }
  std::string_view dtype = qualified_name.substr(kPrefix.size());
  dtype.remove_suffix(kSuffix.size());
  for (std::string_view known : kStorageDtypes) {
    if (dtype == known) return known;
  }
  return std::nullopt;
}

bool is_lowered_class(std::string_view qualified_name) {
  for (std::string_view prefix : {"torch.jit.LoweredModule.", "torch.jit.LoweredWrapper."}) {
    if (!qualified_name.starts_with(prefix)) continue;
    std::string_view rest = qualified_name.substr(prefix.size());  // "<backend>.__torch__.M"
    std::size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string_view::npos) return false;
    for (char c : rest.substr(0, dot)) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    }
    std::string_view original = rest.substr(dot + 1);
    return original.starts_with("__torch__.") && original.size() > 10;
  }
  return false;
}

std::optional<GlobalKind> classify_global(std::string_view qualified_name,
                                          const TypeResolver& is_class) {
  if (qualified_name == "torch._utils._rebuild_tensor_v2") return GlobalKind::kRebuildTensor;
  if (qualified_name == "collections.OrderedDict") return GlobalKind::kOrderedDict;
  if (qualified_name == "torch.device") return GlobalKind::kDevice;
  // Like PyTorch's own unpickler, accept torch.jit._pickle also under the "__torch__."
  // prefix that old TorchScript writers put on it.
  std::string_view jit_pickle = qualified_name;
  if (jit_pickle.starts_with("__torch__.torch.jit._pickle.")) jit_pickle.remove_prefix(10);
  if (jit_pickle == "torch.jit._pickle.restore_type_tag") return GlobalKind::kRestoreTypeTag;
  if (jit_pickle == "torch.jit._pickle.build_intlist" ||
      jit_pickle == "torch.jit._pickle.build_doublelist" ||
      jit_pickle == "torch.jit._pickle.build_boollist" ||
      jit_pickle == "torch.jit._pickle.build_tensorlist") {
    return GlobalKind::kBuildList;
  }
  if (storage_dtype(qualified_name)) return GlobalKind::kStorageType;
  bool accepted =
      is_class ? is_class(qualified_name)
               : qualified_name.starts_with("__torch__.") || is_lowered_class(qualified_name);
  if (accepted) return GlobalKind::kClass;
  return std::nullopt;
}

Value call_global(GlobalKind kind, std::string_view qualified_name, const Value& args) {
  const ValueList& items = tuple_args(qualified_name, args);
  switch (kind) {
    case GlobalKind::kBuildList:
      return build_list(qualified_name, items);
    case GlobalKind::kRestoreTypeTag:
      return restore_type_tag(qualified_name, items);
    case GlobalKind::kRebuildTensor:
      return rebuild_tensor(qualified_name, items);
    case GlobalKind::kDevice:
      return device(qualified_name, items);
    case GlobalKind::kClass:
    case GlobalKind::kStorageType:
    case GlobalKind::kOrderedDict:
      break;
  }
  throw Error(ErrorKind::kInternal,
              fmt::format("call_global: '{}' is not a function", qualified_name));
}

StorageRef storage_from_persistent_id(const Value& pid) {
  auto bad = [&]() -> Error {
    return Error(ErrorKind::kModel,
                 fmt::format("persistent id must be ('storage', torch.<dtype>Storage, key, "
                             "device, numel), got {}",
                             pid.debug_string(120)));
  };
  if (!pid.is(Value::Kind::kTuple)) throw bad();
  const ValueList& items = pid.as_tuple();
  if (items.size() != 5 || !items[0].is(Value::Kind::kString) ||
      items[0].as_string() != "storage" || !items[1].is(Value::Kind::kGlobal) ||
      !items[2].is(Value::Kind::kString) || !items[3].is(Value::Kind::kString) ||
      !items[4].is(Value::Kind::kInt) || items[4].as_int() < 0) {
    throw bad();
  }
  std::optional<std::string_view> dtype = storage_dtype(items[1].as_global());
  if (!dtype) throw bad();
  return StorageRef{std::string(*dtype), std::string(items[2].as_string()),
                    std::string(items[3].as_string()), items[4].as_int()};
}

}  // namespace symbolite::pickle
