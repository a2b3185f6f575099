// JSON form of a Symbolication (schema in docs/CLI.md): what `symbolicate --json` prints and
// what the Python module returns.
#pragma once

#include <nlohmann/json.hpp>

#include "symbolite/debuginfo/symbolication.h"

namespace symbolite::debuginfo {

nlohmann::json to_json(const Symbolication& s);

}  // namespace symbolite::debuginfo
