// The closest known command to a mistyped one ("symbolcate" -> "symbolicate"), for the
// "unknown command" message; empty when nothing is close enough to be a plausible typo.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace symbolite::cli {

std::string closest_command(std::string_view typed, const std::vector<std::string>& known);

}  // namespace symbolite::cli
