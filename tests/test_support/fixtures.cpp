#include "tests/test_support/fixtures.h"

#include <fstream>
#include <stdexcept>

namespace symbolite::testing {

std::string source_path(std::string_view relative) {
  return std::string(SYMBOLITE_SOURCE_DIR) + "/" + std::string(relative);
}

std::string fixture_path(std::string_view relative) {
  return source_path("tests/fixtures/" + std::string(relative));
}

nlohmann::json load_golden(std::string_view stem) {
  std::string path = fixture_path("goldens/" + std::string(stem) + ".json");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open golden " + path);
  return nlohmann::json::parse(in);
}

}  // namespace symbolite::testing
