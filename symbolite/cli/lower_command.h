// `symbolite lower MODEL.ptl --backend B [--auto | --module PATH...] -o OUT.ptl [--json]`:
// partition a model for a delegate backend, compile each partition into the backend's payload
// with a debug handle per delegate node, and write a to_backend file that symbolite and
// PyTorch 1.13 (with libsymbolite_torch.so) both run (compiler/lowering/lowering.h).
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_lower_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
