// Runs the built `symbolite` binary for CLI tests and captures what it printed.
#pragma once

#include <string>

namespace symbolite::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the binary path as is (shell syntax); `stdin_text` is fed on stdin.
CliResult run_cli(const std::string& args, const std::string& stdin_text = "");

// tests/fixtures/models/nested.ptl, the model most CLI tests run.
std::string nested();

// CLI arguments that run nested.ptl's `direct` method on committed inputs it accepts.
std::string direct_call();

}  // namespace symbolite::testing
