// Text from a file or an input, made safe for a terminal: control characters and bytes that
// are not UTF-8 become `\xNN`, so a hostile name cannot move the cursor, ring the bell, hide
// text behind a carriage return or cut a line at a NUL. Valid UTF-8 passes unchanged.
#pragma once

#include <string>
#include <string_view>

namespace symbolite {

enum class Newlines { kKeep, kEscape };

// `text` with every control character except tab (and newline, with Newlines::kKeep), DEL,
// and every byte that is not part of a valid UTF-8 sequence written as `\xNN`.
std::string printable_text(std::string_view text, Newlines newlines = Newlines::kKeep);

// A name from a file (module, type, function, file, operator) as it goes into a message or
// a report that symbolite lays out in lines: a newline in it is written `\x0a`, so it cannot
// start a line of its own. printable_text escapes the rest on output; multi-line text from
// the file (source code, a model's own error message) keeps its lines.
std::string single_line(std::string_view name);

}  // namespace symbolite
