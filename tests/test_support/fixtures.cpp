#include "tests/test_support/fixtures.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace symbolite::testing {

std::string source_path(std::string_view relative) {
  return std::string(SYMBOLITE_SOURCE_DIR) + "/" + std::string(relative);
}

std::string fixture_path(std::string_view relative) {
  return source_path("tests/fixtures/" + std::string(relative));
}

std::vector<std::string> fixture_files(std::string_view dir, std::string_view extension) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(fixture_path(dir))) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(extension)) out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string param_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return out;
}

nlohmann::json load_golden(std::string_view stem) {
  std::string path = fixture_path("goldens/" + std::string(stem) + ".json");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open golden " + path);
  return nlohmann::json::parse(in);
}

}  // namespace symbolite::testing
