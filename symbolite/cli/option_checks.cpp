#include "symbolite/cli/option_checks.h"

#include <fmt/format.h>

namespace symbolite::cli {

CLI::Validator at_least(long long minimum) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        long long value = 0;
        std::size_t used = 0;
        try {
          value = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size()) return fmt::format("must be a whole number, got '{}'", text);
        if (value < minimum) return fmt::format("must be at least {}, got {}", minimum, value);
        return {};
      },
      fmt::format("INT>={}", minimum));
}

}  // namespace symbolite::cli
