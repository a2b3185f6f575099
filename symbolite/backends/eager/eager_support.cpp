#include "symbolite/backends/eager/eager_support.h"

#include <fmt/format.h>

#include "symbolite/ops/registry/operator_registry.h"

namespace symbolite::backends {

std::optional<std::string> EagerSupport::why_unsupported(const compiler::Node& node) const {
  const std::string& kind = node.kind();
  if (!node.blocks().empty())
    return fmt::format("{}: control flow stays with the interpreter", kind);
  if (kind == "aten::warn" || kind == "aten::format" ||
      (kind == "aten::__getitem__" && node.overload().starts_with("Dict"))) {
    return fmt::format("{}: an instruction of the interpreter, not an operator", kind);
  }
  if (!kind.starts_with("aten::")) {
    return fmt::format(
        "{}: not an operator (lists, tuples, attributes and calls stay with the "
        "interpreter)",
        kind);
  }
  std::string full = node.qualified_kind();
  if (ops::default_registry().find(full) == nullptr) {
    return fmt::format("{}: symbolite has no kernel for it", full);
  }
  return std::nullopt;
}

}  // namespace symbolite::backends
