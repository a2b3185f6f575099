#include "symbolite/mobile/value_conversion.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/support/error.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::mobile {
namespace {

constexpr std::size_t kMaxDepth = 1000;

}  // namespace

tensor::Storage ValueConverter::storage(const pickle::StorageRef& ref) {
  auto it = storages_.find(ref.key);
  if (it != storages_.end()) return it->second;
  std::string record = folder_ + "/" + ref.key;
  // A storage record holds numel elements, as PyTorch writes it; a larger one (a deflated
  // record can declare gigabytes from a small file) is refused before it is inflated, so a
  // run takes no more memory for tensors than the model declares.
  if (auto dtype = tensor::dtype_from_storage_name(ref.dtype); dtype && ref.numel >= 0) {
    const std::uint64_t declared =
        static_cast<std::uint64_t>(ref.numel) * tensor::element_size(*dtype);
    const std::uint64_t size = archive_.record_size(record).value_or(0);
    if (size > declared) {
      throw Error(ErrorKind::kFormat,
                  fmt::format("{}: archive entry '{}/{}' is {} bytes, but its storage declares {} "
                              "{} elements ({} bytes)",
                              archive_.display_name(), archive_.record_folder(), record, size,
                              ref.numel, ref.dtype, declared));
    }
  }
  auto bytes = archive_.read_record(record);
  auto s = tensor::Storage::view(bytes);
  // PyTorch aligns stored records to 64 bytes, so this is a zero-copy view; archives written
  // by other tools (Python's zipfile) may not be aligned, and those storages are copied.
  if (!s.is_aligned(tensor::DType::kFloat64)) {
    s = tensor::Storage::allocate_uninitialized(bytes.size());
    std::copy(bytes.data(), bytes.data() + bytes.size(), s.mutable_data());
  }
  storages_.emplace(ref.key, s);
  return s;
}

ops::IValue ValueConverter::convert(const pickle::Value& v, std::size_t depth) {
  using K = pickle::Value::Kind;
  if (depth > kMaxDepth) {
    throw Error(ErrorKind::kLimit, fmt::format("values nested deeper than {}", kMaxDepth));
  }
  if (const void* id = v.identity()) {
    if (auto it = shared_.find(id); it != shared_.end()) return it->second;
  }
  ops::IValue out;
  switch (v.kind()) {
    case K::kNone:
      return out;
    case K::kBool:
      return ops::IValue(v.as_bool());
    case K::kInt:
      return ops::IValue(v.as_int());
    case K::kDouble:
      return ops::IValue(v.as_double());
    case K::kString:
      return ops::IValue::string(std::string(v.as_string()));
    case K::kDevice:
      return ops::IValue::device(std::string(v.as_device()));
    case K::kTuple:
    case K::kList: {
      ops::IValueList items;
      for (const auto& item : v.as_sequence()) items.push_back(convert(item, depth + 1));
      out = v.kind() == K::kTuple ? ops::IValue::tuple(std::move(items))
                                  : ops::IValue::list(std::move(items));
      break;
    }
    case K::kDict: {
      auto dict = std::make_shared<ops::Dict>();
      for (const auto& [key, value] : v.as_dict()) {
        dict->items.emplace_back(convert(key, depth + 1), convert(value, depth + 1));
      }
      out = ops::IValue::dict(std::move(dict));
      break;
    }
    case K::kObject: {
      const auto& object = v.as_object();
      auto result = std::make_shared<ops::Object>();
      result->type_name = object.type_name;
      // Register before converting the state, so an object reachable from its own
      // attributes converts to itself.
      out = ops::IValue::object(result);
      shared_.emplace(v.identity(), out);
      if (!object.state.is(K::kDict) && has_setstate_ && has_setstate_(object.type_name)) {
        ops::IValue state = convert(object.state, depth + 1);
        setstate_calls_.push_back({out, std::move(state)});
        return out;
      }
      if (!object.state.is(K::kDict)) {
        throw Error(ErrorKind::kUnsupported,
                    fmt::format("object of type {} has a {} state; only attribute dicts are "
                                "supported",
                                object.type_name, object.state.kind_name()));
      }
      for (const auto& [key, value] : object.state.as_dict()) {
        result->slot_names.emplace_back(key.as_string());
        result->slots.push_back(convert(value, depth + 1));
      }
      return out;
    }
    case K::kTensor: {
      const auto& t = v.as_tensor();
      auto dtype = tensor::dtype_from_storage_name(t.storage.dtype);
      if (!dtype) {
        throw Error(ErrorKind::kUnsupported,
                    fmt::format("tensor storage type {}Storage", t.storage.dtype));
      }
      out = ops::IValue(tensor::Tensor::from_storage(storage(t.storage), *dtype, t.sizes, t.strides,
                                                     t.storage_offset));
      break;
    }
    case K::kStorage:
    case K::kGlobal:
      throw Error(ErrorKind::kModel,
                  fmt::format("a bare {} cannot be a model value", v.kind_name()));
  }
  if (const void* id = v.identity()) shared_.emplace(id, out);
  return out;
}

}  // namespace symbolite::mobile
