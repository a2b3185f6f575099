#include "symbolite/cli/export_command.h"

#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/cli/options.h"
#include "symbolite/compiler/model_export.h"
#include "symbolite/support/json_text.h"

namespace symbolite::cli {
namespace {

struct ExportCommandOptions {
  std::string model;
  std::string output;
  std::vector<std::string> passes;
  bool stable_handles = false;
  bool json = false;
};

}  // namespace

void add_export_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ExportCommandOptions>();
  auto* cmd =
      app.add_subcommand("export", "Lift, transform and re-emit a model as a PyTorch 1.13 .ptl");
  cmd->add_option("model", options->model, "Model archive (.ptl)")->required();
  cmd->add_option("-o,--output", options->output, "Where to write the exported model")->required();
  cmd->add_option("--passes", options->passes,
                  "Passes to run (comma-separated: fold-attributes, dce, dedup-constants, all)")
      ->delimiter(',');
  cmd->add_flag("--stable-handles", options->stable_handles,
                "Content-derived debug handles: identical output in any process");
  cmd->add_flag("--json", options->json, "Print a JSON report (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    check_binary_output("-o", options->output);
    refuse_overlapping_outputs({{"-o", options->output}}, {{"MODEL", options->model}});
    compiler::ExportOptions export_options;
    export_options.handles = options->stable_handles ? compiler::HandleScheme::kStable
                                                     : compiler::HandleScheme::kCounter;
    export_options.passes = options->passes;
    auto report = compiler::export_model(options->model, options->output, export_options);
    if (options->json) {
      nlohmann::json passes = nlohmann::json::array();
      for (const auto& p : report.passes)
        passes.push_back({{"pass", p.pass}, {"changes", p.changes}});
      nlohmann::json out = {{"schema_version", 1},
                            {"model", options->model},
                            {"output", options->output},
                            {"handles", options->stable_handles ? "stable" : "counter"},
                            {"functions", report.functions},
                            {"instructions", report.instructions},
                            {"debug_handles", report.handles},
                            {"passes", passes}};
      std::cout << json_text(out, 2) << "\n";
    } else {
      fmt::print("wrote {}: {} functions, {} instructions, {} debug handles ({})\n",
                 options->output, report.functions, report.instructions, report.handles,
                 options->stable_handles ? "stable" : "counter");
      for (const auto& p : report.passes) fmt::print("  pass {}: {} changes\n", p.pass, p.changes);
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
