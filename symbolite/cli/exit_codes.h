// Exit codes of the `symbolite` command, documented in the README.
#pragma once

#include "symbolite/support/error.h"

namespace symbolite::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitModelError = 1;  // a model or input file problem, or a handle not found
inline constexpr int kExitUsage = 2;       // bad command line

inline int exit_code_for(const Error& e) {
  return e.kind() == ErrorKind::kUsage ? kExitUsage : kExitModelError;
}

}  // namespace symbolite::cli
