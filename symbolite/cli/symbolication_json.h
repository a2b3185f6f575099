// JSON form of a Symbolication (schema in docs/CLI.md).
#pragma once

#include <nlohmann/json.hpp>

#include "symbolite/debuginfo/symbolication.h"

namespace symbolite::cli {

nlohmann::json to_json(const debuginfo::Symbolication& s);

}  // namespace symbolite::cli
