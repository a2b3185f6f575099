// `--max-instructions` and `--timeout`, shared by `run`, `profile` and `bench`: the run
// budget (runtime/run_budget.h) of each call of the model's method.
#pragma once

#include <CLI/CLI.hpp>

#include "symbolite/runtime/run_budget.h"

namespace symbolite::cli {

struct RunBudgetOptions {
  long long max_instructions = 0;  // 0: no limit
  double timeout_seconds = 0;      // 0: no limit
};

void add_run_budget_options(CLI::App* command, RunBudgetOptions& options);

runtime::RunBudget to_run_budget(const RunBudgetOptions& options);

}  // namespace symbolite::cli
