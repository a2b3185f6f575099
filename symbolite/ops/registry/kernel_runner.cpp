#include "symbolite/ops/registry/kernel_runner.h"

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::ops {

std::vector<IValue> run_op_multi(std::string_view name, std::vector<IValue> args) {
  const OperatorDef* def = default_registry().find(name);
  if (def == nullptr) {
    throw Error(ErrorKind::kNotFound, fmt::format("operator {} is not registered", name));
  }
  std::size_t first_default = def->num_args - def->defaults.size();
  if (args.size() < first_default || args.size() > def->num_args) {
    throw Error(ErrorKind::kUsage, fmt::format("{} takes {} to {} arguments, got {}", name,
                                               first_default, def->num_args, args.size()));
  }
  Stack stack = std::move(args);
  for (std::size_t i = stack.size(); i < def->num_args; ++i) {
    stack.push_back(def->defaults[i - first_default]);
  }
  def->kernel(stack);
  return stack;
}

IValue run_op(std::string_view name, std::vector<IValue> args) {
  auto results = run_op_multi(name, std::move(args));
  if (results.size() != 1) {
    throw Error(ErrorKind::kInternal,
                fmt::format("{} left {} values, expected 1", name, results.size()));
  }
  return std::move(results.front());
}

}  // namespace symbolite::ops
