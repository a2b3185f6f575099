#include "symbolite/cli/operators_command.h"

#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/ops/schema/schema_table.h"
#include "symbolite/support/json_text.h"

namespace symbolite::cli {
namespace {

struct OperatorsOptions {
  bool json = false;
};

// PyTorch's schema text of `name`; empty for symbolite's own operators (no PyTorch schema).
std::string schema_text(const std::string& name) {
  const ops::FunctionSchema* schema = ops::find_schema(name);
  return schema == nullptr ? std::string() : schema->to_string();
}

nlohmann::json to_json(const ops::OperatorRegistry& registry) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& name : registry.names()) {
    const ops::OperatorDef* def = registry.find(name);
    list.push_back({{"name", name},
                    {"arguments", def->num_args},
                    {"defaults", def->defaults.size()},
                    {"schema", schema_text(name)}});
  }
  return {{"schema_version", 1}, {"count", list.size()}, {"operators", list}};
}

void print_text(const ops::OperatorRegistry& registry) {
  std::string out;
  for (const auto& name : registry.names()) {
    std::string schema = schema_text(name);
    out += schema.empty() ? name + "\n" : schema + "\n";
  }
  out += fmt::format("{} operators\n", registry.size());
  std::cout << out;
}

}  // namespace

void add_operators_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<OperatorsOptions>();
  auto* cmd = app.add_subcommand("operators", "List the operators symbolite implements");
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    const auto& registry = ops::default_registry();
    if (options->json) {
      std::cout << json_text(to_json(registry), 2) << "\n";
    } else {
      print_text(registry);
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
