// `symbolite profile MODEL --input ... [--runs N --warmup W] [--by op|module] [--trace FILE]
// [--folded FILE] [--json]`: runs the model with the profiler on and attributes every
// operator to its module through the debug info.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_profile_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
