#include "symbolite/mobile/module_tree.h"

#include <fmt/format.h>

#include "symbolite/pickle/globals.h"
#include "symbolite/support/error.h"

namespace symbolite::mobile {
namespace {

constexpr std::size_t kMaxModuleDepth = 1000;

bool is_module(const pickle::Value& v) {
  if (!v.is(pickle::Value::Kind::kObject)) return false;
  if (pickle::is_lowered_class(v.as_object().type_name)) return true;
  const auto& state = v.as_object().state;
  if (!state.is(pickle::Value::Kind::kDict)) return false;
  for (const auto& [key, value] : state.as_dict()) {
    if (key.is(pickle::Value::Kind::kString) && key.as_string() == "training") return true;
  }
  return false;
}

std::uint64_t element_count(const pickle::TensorRef& t) {
  std::uint64_t n = 1;
  for (auto s : t.sizes) n *= static_cast<std::uint64_t>(s < 0 ? 0 : s);
  return n;
}

constexpr std::string_view kLoweredModulePrefix = "torch.jit.LoweredModule.";

// The bytes of a payload's texts: a method's payload is a string, or a tuple whose first item
// is (symbolite's delegate programs: (program, weights)).
std::uint64_t string_bytes(const pickle::Value& v) {
  if (v.is(pickle::Value::Kind::kString)) return v.as_string().size();
  if (v.is(pickle::Value::Kind::kTuple)) {
    const auto& items = v.as_tuple();
    return items.empty() ? 0 : string_bytes(items.front());
  }
  if (!v.is(pickle::Value::Kind::kDict)) return 0;
  std::uint64_t n = 0;
  for (const auto& [key, value] : v.as_dict()) {
    if (!value.is(pickle::Value::Kind::kDict)) n += string_bytes(value);
  }
  return n;
}

// The getstate tuple of a LoweredModule; Error(kModel) when it has another shape.
LoweredModuleInfo read_lowered(const pickle::Object& object) {
  std::string_view rest = std::string_view(object.type_name).substr(kLoweredModulePrefix.size());
  LoweredModuleInfo info;
  info.backend = std::string(rest.substr(0, rest.find('.')));
  const auto& state = object.state.as_tuple();
  if (state.size() != 3) {
    throw Error(ErrorKind::kModel,
                fmt::format("{}: expected a (compile spec, processed, flag) state, got {} items",
                            object.type_name, state.size()));
  }
  for (const auto& [key, value] : state[0].as_dict()) {
    info.compile_spec_methods.emplace_back(key.as_string());
  }
  info.processed_kind = std::string(state[1].kind_name());
  info.processed_bytes = string_bytes(state[1]);
  return info;
}

ModuleNode read_node(std::string name, const pickle::Value& v, std::size_t depth) {
  if (depth > kMaxModuleDepth) {
    throw Error(ErrorKind::kLimit, fmt::format("modules nested deeper than {}", kMaxModuleDepth));
  }
  const auto& object = v.as_object();
  ModuleNode node{std::move(name), object.type_name, 0, 0, {}, std::nullopt};
  if (object.type_name.starts_with(kLoweredModulePrefix) &&
      pickle::is_lowered_class(object.type_name)) {
    node.lowered = read_lowered(object);
    return node;
  }
  if (!object.state.is(pickle::Value::Kind::kDict)) return node;
  for (const auto& [key, value] : object.state.as_dict()) {
    if (value.is(pickle::Value::Kind::kTensor)) {
      ++node.tensors;
      node.tensor_elements += element_count(value.as_tensor());
    } else if (is_module(value)) {
      node.children.push_back(read_node(std::string(key.as_string()), value, depth + 1));
    }
  }
  return node;
}

}  // namespace

ModuleNode read_module_tree(const pickle::Value& root) {
  if (!root.is(pickle::Value::Kind::kObject)) {
    throw Error(ErrorKind::kModel,
                fmt::format("expected the root module object, got {}", root.kind_name()));
  }
  return read_node("", root, 0);
}

}  // namespace symbolite::mobile
