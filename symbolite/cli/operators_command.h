// `symbolite operators [--json]`: every operator symbolite implements, with PyTorch 1.13's
// schema for it — what a model may call. `symbolite inspect MODEL` says which of a model's
// operators are missing; docs/OPERATORS.md (scripts/make_operators_doc.py) adds where each
// operator is tested against PyTorch.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

// Adds the subcommand to `app`; running it sets `exit_code`.
void add_operators_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
