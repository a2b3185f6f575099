// Fixture models loaded once per test binary and shared by the tests that run them.
#pragma once

#include <map>
#include <string>

#include "symbolite/mobile/loaded_model.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::testing {

// tests/fixtures/models/<file>, e.g. loaded_fixture("nested.ptl").
inline const mobile::LoadedModel& loaded_fixture(const std::string& file) {
  static std::map<std::string, mobile::LoadedModel> models;
  auto it = models.find(file);
  if (it == models.end()) {
    it = models.emplace(file, mobile::LoadedModel::load(fixture_path("models/" + file))).first;
  }
  return it->second;
}

}  // namespace symbolite::testing
