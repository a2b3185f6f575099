#include "symbolite/ops/registry/warnings.h"

#include <atomic>
#include <cstdio>

#include <fmt/format.h>

#include "symbolite/support/printable_text.h"

namespace symbolite::ops {
namespace {

void to_stderr(std::string_view message) {
  // The message comes from the model: one line, whatever it holds.
  fmt::print(stderr, "Warning: {}\n", single_line(message));
}

std::atomic<WarningHandler> current{to_stderr};

}  // namespace

void set_warning_handler(WarningHandler handler) {
  current.store(handler != nullptr ? handler : to_stderr);
}

void warn(std::string_view message) { current.load()(message); }

}  // namespace symbolite::ops
