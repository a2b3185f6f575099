// `symbolite symbolicate MODEL HANDLE... [--json]` and `symbolite symbolicate MODEL -`:
// turns debug handles — given as arguments, or found in a crash log on stdin — into module
// hierarchies and TorchScript tracebacks.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_symbolicate_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
