#include "symbolite/ops/registry/resolved_kernel.h"

#include <string>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::ops {

const OperatorDef& registered_def(const OperatorRegistry& registry, std::string_view base,
                                  std::string_view needed_by) {
  const OperatorDef* def = registry.find(base);
  if (def == nullptr) {
    throw Error(ErrorKind::kInternal, fmt::format("{} needs {}, not registered", needed_by, base));
  }
  return *def;
}

void add_alias(OperatorRegistry& registry, std::string_view alias, std::string_view base,
               const std::vector<IValue>* defaults) {
  const OperatorDef& def = registered_def(registry, base, alias);
  registry.add({std::string(alias), def.num_args, defaults != nullptr ? *defaults : def.defaults,
                def.kernel});
}

}  // namespace symbolite::ops
