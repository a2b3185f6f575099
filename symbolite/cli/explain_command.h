// `symbolite explain MODEL --backend B [--module PATH...] [--method M] [--json]`: what a
// lowering to B would do, without writing anything — the partitions with their operators and
// compile time (each payload compiled by the runtime's backend, as at load; a compile failure
// is reported with the source of the node at fault), every break with its reason, node, source
// line and module, and the share of operators delegated.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_explain_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
