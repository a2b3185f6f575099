// `symbolite graph MODEL [--method NAME] [--json]`: the model's IR, in PyTorch's graph text
// style, each node followed by its source location and module hierarchy.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_graph_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
