// Option validators with messages a person reads once and understands ("--runs: must be at
// least 1, got 0"), instead of CLI11's numeric ranges.
#pragma once

#include <CLI/CLI.hpp>

namespace symbolite::cli {

// An integer option that must be >= `minimum`.
CLI::Validator at_least(long long minimum);

}  // namespace symbolite::cli
