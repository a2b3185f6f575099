// `symbolite check MODEL [--debug SIDECAR] [--json] [--strict]`: the pre-ship gate. Exit 0
// when the model's debug information will answer for every instruction, 1 with a list of
// findings otherwise (warnings count too with --strict), 2 for usage errors.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_check_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
