#include "symbolite/cli/graph_command.h"

#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/compiler/graph_printer.h"
#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/passes/pass_registry.h"
#include "symbolite/mobile/model_info.h"

namespace symbolite::cli {
namespace {

struct GraphOptions {
  std::string model;
  std::string method;
  std::vector<std::string> passes;
  bool json = false;
};

// The functions to print: all, or the one named by its short or qualified name.
std::vector<const compiler::Function*> selected(const compiler::Program& program, const std::string& method) {
  std::vector<const compiler::Function*> out;
  std::vector<std::string> names;
  for (const auto& fn : program.functions) {
    names.push_back(fn.short_name());
    if (method.empty() || fn.short_name() == method || fn.qualified_name == method) out.push_back(&fn);
  }
  if (out.empty()) {
    throw Error(ErrorKind::kUsage, fmt::format("the model has no method '{}' (it has: {})", method,
                                               fmt::join(names, ", ")));
  }
  return out;
}

}  // namespace

void add_graph_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<GraphOptions>();
  auto* cmd = app.add_subcommand("graph", "Print a model's IR with each node's source and module");
  cmd->add_option("model", options->model, "Model archive (.ptl)")->required();
  cmd->add_option("--method", options->method, "Only this method (e.g. forward)");
  cmd->add_option("--passes", options->passes, "Run these passes first (comma-separated; 'all')")
      ->delimiter(',');
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    auto model = mobile::ModelInfo::load(options->model);
    compiler::Program program = compiler::lift(model);
    compiler::run_passes(program, options->passes);
    auto functions = selected(program, options->method);
    if (options->json) {
      nlohmann::json out = {{"schema_version", 1}, {"model", model.archive.display_name()},
                            {"top_type", program.top_type}, {"bytecode_version", program.bytecode_version}};
      nlohmann::json list = nlohmann::json::array();
      for (const auto* fn : functions) list.push_back(compiler::function_to_json(*fn, program.top_type));
      out["functions"] = list;
      std::cout << out.dump(2) << "\n";
    } else {
      std::string text;
      for (const auto* fn : functions) {
        if (!text.empty()) text += "\n";
        text += compiler::print_function(*fn, program.top_type);
      }
      std::cout << text;
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
