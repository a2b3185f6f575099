#include "symbolite/ops/registry/missing_operator.h"

#include <fmt/format.h>

#include "symbolite/support/printable_text.h"

namespace symbolite::ops {

MissingOperatorCalled::MissingOperatorCalled()
    : Error(ErrorKind::kUnsupported, "an operator symbolite does not implement") {}

void missing_operator_kernel(Stack& /*stack*/) { throw MissingOperatorCalled(); }

std::string missing_operator_message(std::string_view name) {
  // The name comes from the file: one line, whatever it holds.
  return fmt::format("{} is not implemented by symbolite", single_line(name));
}

}  // namespace symbolite::ops
