// JSON as the commands print and write it: always valid UTF-8 (`--json` promises it), so a
// name from a file that is not UTF-8 has its bad bytes replaced by U+FFFD instead of making
// nlohmann throw type_error.316 mid-output.
#pragma once

#include <string>

namespace symbolite::cli {

template <class Json>
std::string json_text(const Json& j, int indent = 2) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace symbolite::cli
