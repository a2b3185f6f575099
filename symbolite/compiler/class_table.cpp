#include "symbolite/compiler/class_table.h"

#include "symbolite/support/error.h"

namespace symbolite::compiler {
namespace {

// data.pkl nests modules a few levels deep; a hostile file could nest far deeper.
constexpr int kMaxObjectDepth = 256;

void collect(const pickle::Value& value, int depth,
             std::map<std::string, std::vector<ClassAttribute>, std::less<>>& classes) {
  if (depth > kMaxObjectDepth) {
    throw Error(ErrorKind::kLimit, "data.pkl objects nest deeper than 256 levels");
  }
  using Kind = pickle::Value::Kind;
  switch (value.kind()) {
    case Kind::kObject: {
      const auto& object = value.as_object();
      if (!object.state.is(Kind::kDict)) return;
      const auto& items = object.state.as_dict();
      auto [it, fresh] = classes.try_emplace(object.type_name);
      for (const auto& [key, item] : items) {
        if (fresh && key.is(Kind::kString)) {
          it->second.push_back(
              ClassAttribute{std::string(key.as_string()), type_of_constant(item)});
        }
        collect(item, depth + 1, classes);
      }
      return;
    }
    case Kind::kList:
    case Kind::kTuple:
      for (const auto& item : value.as_sequence()) collect(item, depth + 1, classes);
      return;
    case Kind::kDict:
      for (const auto& [key, item] : value.as_dict()) collect(item, depth + 1, classes);
      return;
    default:
      return;
  }
}

}  // namespace

ClassTable ClassTable::from_objects(const pickle::Value& root) {
  ClassTable table;
  collect(root, 0, table.classes_);
  return table;
}

std::optional<ClassAttribute> ClassTable::attribute(std::string_view type, std::size_t slot) const {
  auto it = classes_.find(type);
  if (it == classes_.end() || slot >= it->second.size()) return std::nullopt;
  return it->second[slot];
}

std::optional<std::size_t> ClassTable::slot_of(std::string_view type, std::string_view name) const {
  auto it = classes_.find(type);
  if (it == classes_.end()) return std::nullopt;
  for (std::size_t i = 0; i < it->second.size(); ++i) {
    if (it->second[i].name == name) return i;
  }
  return std::nullopt;
}

}  // namespace symbolite::compiler
