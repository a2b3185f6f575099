// `IValue`: a value of a running model — what the interpreter's registers and stack hold and
// what kernels consume and produce. The same closed set as PyTorch's IValue for what mobile
// bytecode uses: None, bool, int, float, str, Tensor, list, tuple, dict, object, device.
//
// Lists, dicts and objects are mutable and shared by reference (aliasing is TorchScript
// semantics: `a = b; a.append(1)` changes b). Tuples are immutable and shared. Strings are
// shared immutable text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

class IValue;
using IValueList = std::vector<IValue>;

struct Object;
struct Dict;

class IValue {
 public:
  enum class Kind : std::uint8_t {
    kNone,
    kBool,
    kInt,
    kDouble,
    kString,
    kTensor,
    kList,
    kTuple,
    kDict,
    kObject,
    kDevice,
  };

  IValue() = default;
  IValue(bool b) : kind_(Kind::kBool), v_(b) {}            // NOLINT: implicit by design
  IValue(std::int64_t i) : kind_(Kind::kInt), v_(i) {}     // NOLINT
  IValue(int i) : IValue(static_cast<std::int64_t>(i)) {}  // NOLINT
  IValue(double d) : kind_(Kind::kDouble), v_(d) {}        // NOLINT
  IValue(tensor::Tensor t)                                 // NOLINT
      : kind_(Kind::kTensor), v_(std::make_shared<tensor::Tensor>(std::move(t))) {}
  static IValue string(std::string s);
  static IValue list(IValueList items);
  static IValue tuple(IValueList items);
  static IValue dict(std::shared_ptr<Dict> d);
  static IValue object(std::shared_ptr<Object> o);
  static IValue device(std::string name);

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool is_none() const { return kind_ == Kind::kNone; }

  // Typed access; Error(kModel) "expected int, got Tensor" on a mismatch.
  bool to_bool() const;
  std::int64_t to_int() const;
  double to_double() const;  // accepts int too (PyTorch's Scalar promotion)
  const std::string& to_string() const;
  const tensor::Tensor& to_tensor() const;
  // Replaces the tensor this value holds, for every IValue sharing it: in-place shape changes
  // (unsqueeze_, squeeze_) change the tensor object that every alias of it holds.
  void set_tensor(tensor::Tensor t) const;
  // Whether this holds a tensor that nothing else can see: this IValue is the only handle to
  // the tensor (IValue copies share it) and the tensor the only handle to its owned buffer
  // (Storage::is_unshared). A kernel may then overwrite it instead of allocating its result.
  bool holds_unshared_tensor() const;
  IValueList& to_list() const;  // shared, mutable
  const IValueList& to_tuple() const;
  Dict& to_dict() const;
  Object& to_object() const;
  const std::string& to_device() const;

  // Shared node of lists, tuples, dicts and objects (for `is`), null otherwise.
  const void* identity() const;

  static std::string_view kind_name(Kind kind);
  std::string_view kind_name() const { return kind_name(kind_); }
  // Python-like rendering for messages and FORMAT: 1, 2.5, True, 'x' inside containers, ...
  std::string repr() const;
  // As Python's str(): strings without quotes, the rest as repr().
  std::string str() const;

 private:
  [[noreturn]] void kind_error(Kind expected) const;

  Kind kind_ = Kind::kNone;
  std::variant<std::monostate, bool, std::int64_t, double, std::shared_ptr<const std::string>,
               std::shared_ptr<tensor::Tensor>, std::shared_ptr<IValueList>, std::shared_ptr<Dict>,
               std::shared_ptr<Object>>
      v_;
};

// Insertion-ordered dict; keys are str, int, float, bool or Tensor (by identity).
struct Dict {
  std::vector<std::pair<IValue, IValue>> items;
  // Index of `key`, or -1.
  std::ptrdiff_t find(const IValue& key) const;
};

// The C++ side of a custom-class instance (torch.classes.*: a to_backend backend, say), which
// the runtime defines; objects of model classes have none.
class NativeObject {
 public:
  virtual ~NativeObject() = default;
};

// A TorchScript object: a module or class instance. Slots are in the order of the class's
// attributes (GET_ATTR/SET_ATTR address them by index).
struct Object {
  std::string type_name;  // "__torch__.model_defs.Leaf"
  std::vector<std::string> slot_names;
  std::vector<IValue> slots;
  std::shared_ptr<NativeObject> native;  // custom classes only
};

// Structural equality for the types TorchScript compares with `==` (str, int, float, bool,
// None); used by dict lookup and `in`.
bool equal_scalars(const IValue& a, const IValue& b);

}  // namespace symbolite::ops
