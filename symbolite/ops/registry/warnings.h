// Where a model's `warnings.warn(...)` goes (aten::warn): a handler, by default one line on
// stderr ("Warning: <message>", as PyTorch's default handler prints it). The CLI keeps the
// default; a library user can route warnings to its own log.
#pragma once

#include <string_view>

namespace symbolite::ops {

using WarningHandler = void (*)(std::string_view message);

// Replaces the handler for every thread; nullptr restores the default. Not to be called
// while models run.
void set_warning_handler(WarningHandler handler);
// Passes `message` to the current handler.
void warn(std::string_view message);

}  // namespace symbolite::ops
