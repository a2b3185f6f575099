#include "symbolite/cli/lower_command.h"

#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/backend_choice.h"
#include "symbolite/cli/exit_codes.h"
#include "symbolite/cli/options.h"
#include "symbolite/compiler/lowering/lowering.h"
#include "symbolite/support/json_text.h"

namespace symbolite::cli {
namespace {

struct LowerCommandOptions {
  std::string model;
  std::string output;
  std::string backend;
  std::string method = "forward";
  std::vector<std::string> modules;
  std::vector<std::string> passes = {"all"};
  bool automatic = false;
  std::size_t min_operators = 1;
  bool stable_handles = false;
  bool json = false;
};

nlohmann::json to_json(const compiler::LoweringReport& report, const LowerCommandOptions& o) {
  nlohmann::json partitions = nlohmann::json::array();
  for (const auto& p : report.partitions) {
    nlohmann::json nodes = nlohmann::json::array();
    for (std::size_t i = 0; i < p.operators.size(); ++i) {
      nodes.push_back({{"operator", p.operators[i]},
                       {"debug_handle", p.handles[i]},
                       {"module_hierarchy", p.module_hierarchies[i]}});
    }
    partitions.push_back({{"attribute", p.attribute},
                          {"inputs", p.inputs},
                          {"outputs", p.outputs},
                          {"weights", p.weights},
                          {"program_bytes", p.program_bytes},
                          {"delegate_nodes", nodes}});
  }
  nlohmann::json rejected = nlohmann::json::array();
  for (const auto& r : report.rejected) {
    rejected.push_back({{"node", r.node},
                        {"reason", r.reason},
                        {"module_hierarchy", r.module_hierarchy},
                        {"source", r.source}});
  }
  return {{"schema_version", 1},
          {"model", o.model},
          {"output", o.output},
          {"backend", o.backend},
          {"method", o.method},
          {"partitions", partitions},
          {"rejected", rejected},
          {"functions", report.functions},
          {"instructions", report.instructions}};
}

}  // namespace

void add_lower_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LowerCommandOptions>();
  auto* cmd =
      app.add_subcommand("lower", "Lower a model's subgraphs to a delegate backend (to_backend)");
  cmd->add_option("model", options->model, "Model archive (.ptl)")->required();
  cmd->add_option("-o,--output", options->output, "Where to write the lowered model")->required();
  cmd->add_option("--backend", options->backend, "Delegate backend: xnnpack, eager or symbolite")
      ->required();
  auto* automatic = cmd->add_flag("--auto", options->automatic,
                                  "Lower every run of nodes the backend supports (the default)");
  cmd->add_option("--module", options->modules,
                  "Lower the nodes of this submodule (a path such as layer1.0; repeatable)")
      ->excludes(automatic);
  cmd->add_option("--method", options->method,
                  "Method of the top module to lower (default: forward)");
  cmd->add_option("--passes", options->passes,
                  "Passes to run first (comma-separated; default all: fold-attributes, dce, "
                  "dedup-constants; none for no pass)")
      ->delimiter(',');
  cmd->add_option("--min-operators", options->min_operators,
                  "Smaller runs stay with the interpreter (default: 1)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  cmd->add_flag("--stable-handles", options->stable_handles,
                "Content-derived instruction handles: identical output in any process");
  cmd->add_flag("--json", options->json, "Print a JSON report (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    check_binary_output("-o", options->output);
    refuse_overlapping_outputs({{"-o", options->output}}, {{"MODEL", options->model}});
    auto support = backend_support(options->backend);
    compiler::LoweringOptions lowering;
    lowering.backend = options->backend;
    lowering.modules = options->modules;
    lowering.method = options->method;
    lowering.passes = options->passes;
    if (lowering.passes == std::vector<std::string>{"none"}) lowering.passes.clear();
    lowering.partition.min_operators = options->min_operators;
    lowering.handles = options->stable_handles ? compiler::HandleScheme::kStable
                                               : compiler::HandleScheme::kCounter;
    auto report = compiler::lower_model(options->model, options->output, *support, lowering);
    if (options->json) {
      std::cout << json_text(to_json(report, *options), 2) << "\n";
    } else {
      std::size_t nodes = 0;
      for (const auto& p : report.partitions) nodes += p.operators.size();
      fmt::print(
          "wrote {}: {} partition{} lowered to {} ({} delegate nodes, each with a debug "
          "handle); {} node{} stay with the interpreter\n",
          options->output, report.partitions.size(), report.partitions.size() == 1 ? "" : "s",
          options->backend, nodes, report.rejected.size(), report.rejected.size() == 1 ? "" : "s");
      for (const auto& p : report.partitions) {
        fmt::print("  {}: {} operators, {} inputs, {} outputs, {} weights, program {} bytes\n",
                   p.attribute, p.operators.size(), p.inputs, p.outputs, p.weights,
                   p.program_bytes);
      }
      for (const auto& r : report.rejected) {
        fmt::print("  kept {}{}: {}\n    {}\n", r.node, r.source.empty() ? "" : " at " + r.source,
                   r.reason, r.module_hierarchy);
      }
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
