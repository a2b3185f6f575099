#include "symbolite/mobile/module_tree.h"

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::mobile {
namespace {

constexpr std::size_t kMaxModuleDepth = 1000;

bool is_module(const pickle::Value& v) {
  if (!v.is(pickle::Value::Kind::kObject)) return false;
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

ModuleNode read_node(std::string name, const pickle::Value& v, std::size_t depth) {
  if (depth > kMaxModuleDepth) {
    throw Error(ErrorKind::kLimit, fmt::format("modules nested deeper than {}", kMaxModuleDepth));
  }
  const auto& object = v.as_object();
  ModuleNode node{std::move(name), object.type_name, 0, 0, {}};
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
