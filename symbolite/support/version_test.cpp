// version(): the library's version, "MAJOR.MINOR.PATCH" as CMake's project() declares it.
#include "symbolite/version.h"

#include <regex>
#include <string>

#include <gtest/gtest.h>

namespace symbolite {
namespace {

TEST(Version, IsTheProjectVersionAsMajorMinorPatch) {
  const std::string v = version();
  EXPECT_TRUE(std::regex_match(v, std::regex(R"([0-9]+\.[0-9]+\.[0-9]+)"))) << v;
  EXPECT_EQ(v, SYMBOLITE_TEST_VERSION);  // PROJECT_VERSION, passed by tests/CMakeLists.txt
  EXPECT_EQ(v, SYMBOLITE_VERSION_STRING);
  EXPECT_EQ(v, std::to_string(SYMBOLITE_VERSION_MAJOR) + "." +
                   std::to_string(SYMBOLITE_VERSION_MINOR) + "." +
                   std::to_string(SYMBOLITE_VERSION_PATCH));
}

}  // namespace
}  // namespace symbolite
