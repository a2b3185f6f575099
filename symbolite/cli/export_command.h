// `symbolite export MODEL.ptl -o OUT.ptl [--stable-handles] [--passes LIST] [--json]`: lift the
// model to the IR, run passes, emit bytecode v8 with fresh debug handles and write a file
// PyTorch 1.13 loads. The same input and options give byte-identical output (with
// --stable-handles, across processes too).
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_export_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
