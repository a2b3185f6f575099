#include "symbolite/compiler/operator_types.h"

#include <array>
#include <cctype>

namespace symbolite::compiler {
namespace {

constexpr std::array<std::string_view, 24> kConcreteNames = {
    "Tensor",   "int",       "float",      "bool",         "str",      "Scalar",
    "Device",   "Layout",    "ScalarType", "MemoryFormat", "complex",  "number",
    "NoneType", "Generator", "Storage",    "Stream",       "Any",      "Dimname",
    "QScheme",  "Dict",      "Tuple",      "Future",       "Optional", "List"};

bool is_concrete(std::string_view name) {
  for (auto known : kConcreteNames) {
    if (known == name) return true;
  }
  return false;
}

}  // namespace

Type concrete_type(std::string_view schema_type) {
  std::size_t i = 0;
  while (i < schema_type.size()) {
    unsigned char c = static_cast<unsigned char>(schema_type[i]);
    if (std::isalpha(c) || c == '_') {
      std::size_t start = i;
      while (i < schema_type.size() &&
             (std::isalnum(static_cast<unsigned char>(schema_type[i])) || schema_type[i] == '_')) {
        ++i;
      }
      if (!is_concrete(schema_type.substr(start, i - start))) return "Any";
    } else {
      ++i;
    }
  }
  return schema_type.empty() ? Type("Any") : Type(schema_type);
}

}  // namespace symbolite::compiler
