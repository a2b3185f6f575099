// `--threads N` on `run`, `profile` and `bench`: how many threads a kernel may use (support/
// parallel_for.h; default: the hardware threads this process may use, or
// SYMBOLITE_NUM_THREADS).
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

void add_threads_option(CLI::App* command);

}  // namespace symbolite::cli
