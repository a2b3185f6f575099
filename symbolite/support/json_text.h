// JSON as symbolite prints and writes it (`--json`, result.json, input files): always valid
// UTF-8, so a name from a file that is not UTF-8 has its bad bytes replaced by U+FFFD instead
// of making nlohmann throw type_error.316 mid-output. `indent` -1 is one line.
#pragma once

#include <string>

namespace symbolite {

template <class Json>
std::string json_text(const Json& j, int indent = 2) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace symbolite
