// `symbolite inspect MODEL [--json]`: what a model archive holds — bytecode version, methods
// with instruction and operator counts, the module tree, and which debug records are there.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

// Adds the subcommand to `app`; running it sets `exit_code`.
void add_inspect_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
