// `RunBudget`: how far one run of a model may go before it is stopped. The verifier refuses
// loops the bytecode shows to be endless (a jump to itself); a loop whose end depends on the
// values (`while x > 0:`) cannot be told apart from a long computation, so a caller that runs
// untrusted models sets a budget. A stopped run is a RunError at the instruction it reached,
// with that instruction's traceback, so the user sees which loop ran away.
//
// The budget is checked between instructions: one kernel call (a large convolution) finishes
// before a timeout or a cancellation is noticed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace symbolite::runtime {

struct RunBudget {
  // Instructions one call of run_method may execute, counting those of called methods; 0 for
  // no limit.
  std::uint64_t max_instructions = 0;
  // Wall-clock time one call of run_method may take; zero for no limit.
  std::chrono::milliseconds timeout{0};
  // Values on the interpreter's stack: a loop that pushes without popping stops here instead
  // of taking all memory. No model PyTorch writes comes near it.
  std::size_t max_stack = std::size_t{1} << 20;
  // Set from any thread to stop the run at its next check (within a few thousand instructions).
  const std::atomic<bool>* cancel = nullptr;
};

}  // namespace symbolite::runtime
