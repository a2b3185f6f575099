// The `symbolite` command: one subcommand per file in this folder, thin over the library.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/cli/bench_command.h"
#include "symbolite/cli/export_command.h"
#include "symbolite/cli/graph_command.h"
#include "symbolite/cli/inspect_command.h"
#include "symbolite/cli/profile_command.h"
#include "symbolite/cli/run_command.h"
#include "symbolite/cli/split_command.h"
#include "symbolite/cli/symbolicate_command.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/support/error.h"

int main(int argc, char** argv) {
  using namespace symbolite;
  CLI::App app("symbolite: model-level debug information for TorchScript models", "symbolite");
  app.require_subcommand(1);
  int exit_code = cli::kExitOk;
  cli::add_inspect_command(app, exit_code);
  cli::add_symbolicate_command(app, exit_code);
  cli::add_split_command(app, exit_code);
  cli::add_run_command(app, exit_code);
  cli::add_profile_command(app, exit_code);
  cli::add_bench_command(app, exit_code);
  cli::add_graph_command(app, exit_code);
  cli::add_export_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return cli::kExitUsage;
  } catch (const runtime::RunError& e) {
    // A failure inside the model: its own message and location, as the model raised it.
    std::fflush(stdout);
    fmt::print(stderr, "{}\n", e.what());
    return cli::kExitModelError;
  } catch (const Error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "symbolite: {}: {}\n", to_string(e.kind()), e.what());
    return cli::exit_code_for(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "symbolite: internal error: {}\n", e.what());
    return cli::kExitModelError;
  }
  return exit_code;
}
