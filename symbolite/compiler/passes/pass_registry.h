// Passes by name, for `symbolite export --passes dce,dedup-constants`. Each runs on every
// function's graph; the verifier runs after each pass in debug builds (and when asked).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "symbolite/compiler/program.h"

namespace symbolite::compiler {

#ifdef NDEBUG
inline constexpr bool kVerifyByDefault = false;
#else
inline constexpr bool kVerifyByDefault = true;
#endif

struct PassResult {
  std::string pass;
  std::size_t changes = 0;  // nodes removed / rewritten, summed over functions
};

// Names of the known passes, in the order `--passes all` runs them.
std::vector<std::string> pass_names();

// Runs the passes named (comma-separated list split by the caller) in order. Throws
// Error(kUsage) naming an unknown pass and listing the known ones.
std::vector<PassResult> run_passes(Program& program, const std::vector<std::string>& names,
                                   bool verify_after_each = kVerifyByDefault);

}  // namespace symbolite::compiler
