// `ClassTable`: the attributes of every TorchScript class a model's objects have, in slot
// order, read from `data.pkl`. The bytecode addresses attributes by slot (`GET_ATTR 2`); the
// IR names them (`prim::GetAttr[name="conv1"]`), as PyTorch's graphs do.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/compiler/graph.h"
#include "symbolite/pickle/value.h"

namespace symbolite::compiler {

struct ClassAttribute {
  std::string name;
  Type type;  // the attribute value's type as seen in the file ("Tensor", "__torch__.Conv")
};

class ClassTable {
 public:
  // Walks the object tree under `root` (data.pkl). Objects whose state is not a dict (custom
  // __getstate__) contribute no attributes.
  static ClassTable from_objects(const pickle::Value& root);

  // The attribute at `slot` of `type`, or nullopt when unknown.
  std::optional<ClassAttribute> attribute(std::string_view type, std::size_t slot) const;
  // The slot of attribute `name` of `type`, or nullopt.
  std::optional<std::size_t> slot_of(std::string_view type, std::string_view name) const;

 private:
  std::map<std::string, std::vector<ClassAttribute>, std::less<>> classes_;
};

}  // namespace symbolite::compiler
