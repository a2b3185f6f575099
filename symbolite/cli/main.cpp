// The `symbolite` command: one subcommand per file in this folder, thin over the library.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "symbolite/cli/command_suggestion.h"
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
  app.set_version_flag("--version", std::string("symbolite ") + SYMBOLITE_VERSION);
  // `help [COMMAND]`, and a mistyped command named with a suggestion, before CLI11 parses.
  if (argc >= 2 && argv[1][0] != '-') {
    std::string first = argv[1];
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (first == "help") {
      if (argc == 2) {
        std::cout << app.help();
        return cli::kExitOk;
      }
      for (auto* sub : app.get_subcommands({})) {
        if (sub->get_name() == argv[2]) {
          std::cout << sub->help();
          return cli::kExitOk;
        }
      }
      first = argv[2];
    }
    if (std::find(names.begin(), names.end(), first) == names.end()) {
      std::string suggestion = cli::closest_command(first, names);
      fmt::print(stderr, "symbolite: unknown command '{}'{}; `symbolite help` lists the commands\n", first,
                 suggestion.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", suggestion));
      return cli::kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
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
