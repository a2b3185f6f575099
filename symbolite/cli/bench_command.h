// `symbolite bench MODEL --input ... [--runs N --warmup W]`: latency of a model run, min /
// median / p90, with a progress bar while it runs on a terminal.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_bench_command(CLI::App& app, int& exit_code);

}  // namespace symbolite::cli
