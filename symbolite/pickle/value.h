// `Value`: what an unpickled PyTorch pickle is made of.
//
// PyTorch's pickles hold a small closed set of things: None, bool, int, float, str, tuple,
// list, dict, TorchScript objects (`__torch__.*` classes with a state dict), tensors (rebuilt
// from a storage persistent id) and storage references. Value is a tagged union of exactly
// those, nothing executable.
//
// Sharing: tuples, lists, dicts, objects and tensors are held by shared_ptr. When a pickle
// refers to the same tuple twice (memo BINGET), both Values point at the same node, so the
// shared subtrees of a call-stack map stay shared and `identity()` tells them apart cheaply.
// Strings are `Bytes` views into the pickle buffer (zero-copy; the buffer stays alive).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "symbolite/support/bytes.h"

namespace symbolite::pickle {

class Value;

using ValueList = std::vector<Value>;
using DictItems = std::vector<std::pair<Value, Value>>;

// A TorchScript object: `GLOBAL '__torch__ M'`, NEWOBJ, then BUILD with its state.
struct Object;

// A storage reference from a persistent id ('storage', torch.FloatStorage, key, device, numel).
struct StorageRef {
  std::string dtype;   // storage class without "Storage": "Float", "Long", "Half", ...
  std::string key;     // archive entry under data/: "0", "1", ...
  std::string device;  // "cpu"
  std::int64_t numel = 0;
};

// A tensor rebuilt by torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...).
struct TensorRef {
  StorageRef storage;
  std::int64_t storage_offset = 0;
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  bool requires_grad = false;
};

// What a list was built as: TorchScript writes typed lists (List[int], ...) through
// torch.jit._pickle.build_intlist and friends; the pickler writes them back the same way,
// which PyTorch's loader requires (it reads a List[int] only from build_intlist).
enum class ListTag : std::uint8_t { kGeneric, kInt, kDouble, kBool, kTensor };

class Value {
 public:
  enum class Kind : std::uint8_t {
    kNone,
    kBool,
    kInt,
    kDouble,
    kString,
    kTuple,
    kList,
    kDict,
    kObject,
    kTensor,
    kStorage,
    kGlobal,  // a class reference that only makes sense as an argument (torch.FloatStorage)
    kDevice,  // torch.device("cpu"): traced models keep devices among their constants
  };

  Value() = default;  // None
  static Value none() { return Value(); }
  static Value boolean(bool b) { return Value(Kind::kBool, b); }
  static Value integer(std::int64_t i) { return Value(Kind::kInt, i); }
  static Value real(double d) { return Value(Kind::kDouble, d); }
  static Value string(Bytes text) { return Value(Kind::kString, std::move(text)); }
  static Value string(std::string_view text) { return string(Bytes::copy_of(text)); }
  static Value tuple(ValueList items);
  static Value list(ValueList items);
  static Value dict(DictItems items);
  static Value object(std::string type_name, Value state);
  static Value tensor(TensorRef tensor);
  static Value storage(StorageRef storage);
  static Value global(std::string qualified_name);
  static Value device(std::string_view name) { return Value(Kind::kDevice, Bytes::copy_of(name)); }

  Kind kind() const { return kind_; }
  // For lists: how the pickle built it (kGeneric for EMPTY_LIST + APPENDS).
  ListTag list_tag() const { return list_tag_; }
  // This list Value (same shared node) marked as built by a typed builder.
  Value with_list_tag(ListTag tag) const;
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is(Kind k) const { return kind_ == k; }

  // Typed access. Each throws Error(kModel, "expected int, got tuple") on a kind mismatch,
  // so readers can trust the shape of what they read without asserting.
  bool as_bool() const;
  std::int64_t as_int() const;
  double as_double() const;
  std::string_view as_string() const;
  const Bytes& as_string_bytes() const;
  const ValueList& as_tuple() const;
  const ValueList& as_list() const;
  const DictItems& as_dict() const;
  const Object& as_object() const;
  const TensorRef& as_tensor() const;
  const StorageRef& as_storage() const;
  std::string_view as_global() const;
  std::string_view as_device() const;  // "cpu", "cuda:0"

  // Items of a tuple or a list (PyTorch writes some sequences as either).
  const ValueList& as_sequence() const;

  // Mutable access for the unpickler while it builds containers (APPENDS, SETITEMS).
  ValueList& mutable_list();
  DictItems& mutable_dict();
  Object& mutable_object();

  // Address of the shared node for containers/objects, nullptr otherwise: two Values with
  // the same identity are the same pickled node.
  const void* identity() const;

  // The unpickler's number for this container node (GraphGuard), 0 when it was not built by
  // an unpickler. Set once when the node is created, so every copy of the Value carries it.
  std::uint32_t guard_id() const { return guard_id_; }
  void set_guard_id(std::uint32_t id) { guard_id_ = id; }

  // "int", "tuple", ... for error messages.
  static std::string_view kind_name(Kind kind);
  std::string_view kind_name() const { return kind_name(kind_); }

  // A short Python-like rendering for diagnostics and tests, truncated past `limit` chars.
  std::string debug_string(std::size_t limit = 200) const;

 private:
  using Payload =
      std::variant<std::monostate, bool, std::int64_t, double, Bytes, std::shared_ptr<ValueList>,
                   std::shared_ptr<DictItems>, std::shared_ptr<Object>, std::shared_ptr<TensorRef>,
                   std::shared_ptr<StorageRef>, std::shared_ptr<std::string>>;

  template <typename T>
  Value(Kind kind, T&& payload) : kind_(kind), payload_(std::forward<T>(payload)) {}

  [[noreturn]] void kind_error(Kind expected) const;

  Kind kind_ = Kind::kNone;
  ListTag list_tag_ = ListTag::kGeneric;
  std::uint32_t guard_id_ = 0;  // fits beside the two tags: Value stays the same size
  Payload payload_;
};

struct Object {
  std::string type_name;  // fully qualified: "__torch__.torch.nn.modules.linear.Linear"
  Value state;            // usually a dict of attributes; None until BUILD
};

// The attribute `name` of an object whose state is a dict (a module in data.pkl), or nullptr.
const Value* object_attribute(const Value& object, std::string_view name);

// Calls `f` on each value directly inside `value` (a tuple's or list's items, a dict's keys and
// values in turn, an object's state) until it returns true; whether it did. Scalars have none.
template <typename F>
bool any_child(const Value& value, F&& f) {
  switch (value.kind()) {
    case Value::Kind::kTuple:
    case Value::Kind::kList:
      for (const Value& item : value.as_sequence()) {
        if (f(item)) return true;
      }
      return false;
    case Value::Kind::kDict:
      for (const auto& [key, item] : value.as_dict()) {
        if (f(key) || f(item)) return true;
      }
      return false;
    case Value::Kind::kObject:
      return f(value.as_object().state);
    default:
      return false;
  }
}

}  // namespace symbolite::pickle
