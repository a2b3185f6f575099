#include "symbolite/ops/registry/operator_registry.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/support/error.h"

namespace symbolite::ops {

void OperatorRegistry::add(OperatorDef def) {
  if (def.defaults.size() > def.num_args || def.kernel == nullptr) {
    throw Error(ErrorKind::kInternal, fmt::format("bad operator definition {}", def.name));
  }
  std::string name = def.name;
  if (!ops_.emplace(name, std::move(def)).second) {
    throw Error(ErrorKind::kInternal, fmt::format("operator {} registered twice", name));
  }
}

const OperatorDef* OperatorRegistry::find(std::string_view name) const {
  auto it = ops_.find(std::string(name));
  return it == ops_.end() ? nullptr : &it->second;
}

std::vector<std::string> OperatorRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, def] : ops_) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

const OperatorRegistry& default_registry() {
  static const OperatorRegistry registry = [] {
    OperatorRegistry r;
    register_kernel_families(r);
    return r;
  }();
  return registry;
}

IValue pop(Stack& stack) {
  if (stack.empty()) throw Error(ErrorKind::kModel, "stack underflow");
  IValue v = std::move(stack.back());
  stack.pop_back();
  return v;
}

}  // namespace symbolite::ops
