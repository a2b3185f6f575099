// `symbolite split MODEL --out STRIPPED.ptl --debug MODEL.symdbg`: ship a model without its
// source and call stacks, keep a sidecar to symbolicate its handles offline.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_split_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
