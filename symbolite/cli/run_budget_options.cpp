#include "symbolite/cli/run_budget_options.h"

#include <algorithm>
#include <cmath>

namespace symbolite::cli {

void add_run_budget_options(CLI::App* command, RunBudgetOptions& options) {
  command
      ->add_option("--max-instructions", options.max_instructions,
                   "Stop a run after this many bytecode instructions (default: no limit)")
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--timeout", options.timeout_seconds,
                   "Stop a run after this many seconds, e.g. 2.5 (default: no limit)")
      ->check(CLI::PositiveNumber);
}

runtime::RunBudget to_run_budget(const RunBudgetOptions& options) {
  runtime::RunBudget budget;
  budget.max_instructions = static_cast<std::uint64_t>(options.max_instructions);
  // At least 1 ms, so that a tiny positive timeout is not read as "no limit".
  budget.timeout = std::chrono::milliseconds(
      std::max<long long>(1, std::llround(std::min(options.timeout_seconds, 1e12) * 1000.0)));
  if (options.timeout_seconds <= 0) budget.timeout = std::chrono::milliseconds(0);
  return budget;
}

}  // namespace symbolite::cli
