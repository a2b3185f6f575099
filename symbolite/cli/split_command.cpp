#include "symbolite/cli/split_command.h"

#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/cli/options.h"
#include "symbolite/mobile/model_split.h"
#include "symbolite/support/json_text.h"

namespace symbolite::cli {
namespace {

struct SplitOptions {
  std::string model;
  std::string out;
  std::string debug;
  bool json = false;
};

}  // namespace

void add_split_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<SplitOptions>();
  auto* cmd = app.add_subcommand(
      "split", "Write a stripped model (no source, no call stacks) and a debug sidecar");
  cmd->add_option("model", options->model, "Model with debug info (.ptl)")->required();
  cmd->add_option("--out", options->out, "Stripped model to write")->required();
  cmd->add_option("--debug", options->debug, "Sidecar to write (.symdbg)")->required();
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    check_binary_output("--out", options->out);
    check_binary_output("--debug", options->debug);
    refuse_overlapping_outputs({{"--out", options->out}, {"--debug", options->debug}},
                               {{"MODEL", options->model}});
    auto r = mobile::split_model(options->model, options->out, options->debug);
    if (options->json) {
      nlohmann::json out = {{"schema_version", 1},
                            {"model", options->model},
                            {"model_id", to_hex(r.model_id)},
                            {"model_size", r.model_size},
                            {"stripped",
                             {{"path", options->out},
                              {"size", r.stripped_size},
                              {"removed_records", r.removed_records},
                              {"debug_record_bytes", r.debug_record_bytes}}},
                            {"sidecar", {{"path", options->debug}, {"size", r.sidecar_size}}}};
      std::cout << json_text(out, 2) << "\n";
      exit_code = kExitOk;
      return;
    }
    fmt::print("model id: {}\n", to_hex(r.model_id));
    fmt::print("{}: {} bytes\n", options->model, r.model_size);
    fmt::print("{}: {} bytes (removed {} debug records, {} bytes uncompressed)\n", options->out,
               r.stripped_size, r.removed_records, r.debug_record_bytes);
    fmt::print("{}: {} bytes\n", options->debug, r.sidecar_size);
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
