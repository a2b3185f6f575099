// `symbolite run MODEL [--method NAME] --input FILE... [--output-dir DIR]`: runs a model on
// the lite-interpreter runtime. Inputs are .npy files (tensors) or .json files (numbers,
// booleans, strings, null, and lists of them), in argument order; outputs are written as
// DIR/output_0.npy, output_1.npy, ... (docs/CLI.md). A failure prints the model-level
// traceback on stderr and exits 1.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_run_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
