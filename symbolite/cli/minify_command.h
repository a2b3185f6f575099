// `symbolite minify MODEL --backend B --input FILE... [--accuracy RTOL,ATOL] [-o DIR] [--json]`:
// for a lowering that fails to compile, fails at run time, or gives outputs that differ from
// symbolite's run of the unlowered model, finds the smallest set of delegated nodes that still
// fails the same way (delta debugging over the nodes the backend takes), names the node at
// fault with its module hierarchy and source line, and writes a reproducer: the model lowered
// with just those nodes, the inputs, and the command that shows the failure.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_minify_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
