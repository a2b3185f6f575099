// Where the unit tests find committed fixtures (tests/fixtures/...) and the CLI binary.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace symbolite::testing {

// Absolute path of `relative` under tests/fixtures/, e.g. fixture_path("models/nested.ptl").
std::string fixture_path(std::string_view relative);

// Absolute path of `relative` under the source tree root.
std::string source_path(std::string_view relative);

// Names of the files in tests/fixtures/<dir>/ ending in `extension` (".ptl"), sorted.
std::vector<std::string> fixture_files(std::string_view dir, std::string_view extension);

// A test-parameter name from a fixture name: "models/nested.ptl" -> "models_nested_ptl".
std::string param_name(std::string_view name);

// Parsed tests/fixtures/goldens/<stem>.json.
nlohmann::json load_golden(std::string_view stem);

}  // namespace symbolite::testing
