// Turns unpickled `pickle::Value`s (what the archive says) into runtime `ops::IValue`s (what
// the interpreter runs on): objects get their attribute slots, tensors become views of their
// storage records — zero-copy, validated against the storage size — and values shared in the
// pickle stay shared.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbolite/archive/model_archive.h"
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/pickle/value.h"
#include "symbolite/tensor/storage.h"

namespace symbolite::mobile {

class ValueConverter {
 public:
  // Tensor storages are read from records "<storage_folder>/<key>" of `archive` ("data" for
  // data.pkl, "constants" for bytecode constants). `archive` must outlive the converter.
  ValueConverter(const archive::ModelArchive& archive, std::string storage_folder)
      : archive_(archive), folder_(std::move(storage_folder)) {}

  // Objects whose state is not an attribute dict are built by their class's `__setstate__`
  // (a lowered module's state is a tuple). Given `has_setstate`, the converter creates such
  // an object without attributes and records the call to make; without it, or for a class
  // without `__setstate__`, the object is refused.
  struct SetStateCall {
    ops::IValue object;
    ops::IValue state;
  };
  void allow_setstate(std::function<bool(const std::string& type)> has_setstate) {
    has_setstate_ = std::move(has_setstate);
  }
  // In the order PyTorch makes them: an object's state is complete (inner objects built) first.
  std::vector<SetStateCall> take_setstate_calls() { return std::move(setstate_calls_); }

  // Throws Error(kModel / kUnsupported) for values the runtime cannot represent.
  ops::IValue convert(const pickle::Value& value, std::size_t depth = 0);

 private:
  tensor::Storage storage(const pickle::StorageRef& ref);

  const archive::ModelArchive& archive_;
  std::string folder_;
  std::unordered_map<std::string, tensor::Storage> storages_;
  std::unordered_map<const void*, ops::IValue> shared_;
  std::function<bool(const std::string&)> has_setstate_;
  std::vector<SetStateCall> setstate_calls_;
};

}  // namespace symbolite::mobile
