#include "symbolite/cli/threads_option.h"

#include <string>

#include "symbolite/support/parallel_for.h"

namespace symbolite::cli {

void add_threads_option(CLI::App* command) {
  // Applied while the command line is parsed, before the command loads anything.
  command
      ->add_option_function<int>(
          "--threads", [](const int& threads) { set_intra_op_threads(threads); },
          "Threads per operator, 1 to 1024 (default: " + std::to_string(intra_op_threads()) +
              ", the hardware threads this process may use or SYMBOLITE_NUM_THREADS)")
      ->check(CLI::Range(1, 1024));
}

}  // namespace symbolite::cli
