// `symbolite inspect` and `symbolite symbolicate I:B` on the to_backend fixture
// (tests/fixtures/models/delegated.ptl, made by make_delegated_models.py).
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_cli.h"

namespace symbolite::cli {
namespace {

using symbolite::testing::fixture_path;
using symbolite::testing::load_golden;
using symbolite::testing::run_cli;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string delegated() { return fixture_path("models/delegated.ptl"); }

TEST(DelegatedCli, InspectShowsTheLoweredModule) {
  auto golden = load_golden("delegated");
  auto r = run_cli("inspect " + delegated());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "delegate (" + golden["wrapper_type"].get<std::string>() + ")"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "__loweredModule__ (" + golden["lowered_type"].get<std::string>() +
                                  ")  [lowered to backend 'symbolite': forward, payload " +
                                  std::to_string(golden["processed_bytes"]["forward"].get<int>()) +
                                  " bytes]"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "delegated_backends.debug_pkl:")) << r.out;

  auto j = run_cli("inspect --json " + delegated());
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto lowered = nlohmann::json::parse(j.out)["modules"]["children"][0]["children"][0]["lowered"];
  EXPECT_EQ(lowered["backend"], "symbolite");
  EXPECT_EQ(lowered["compile_spec_methods"], nlohmann::json::array({"forward"}));
  EXPECT_EQ(lowered["processed_bytes"], golden["processed_bytes"]["forward"]);
}

TEST(DelegatedCli, SymbolicateInstructionColonBackendPrintsPyTorchsComposedHierarchy) {
  for (const auto& c : load_golden("delegated")["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    std::string pair = std::to_string(c["instruction_handle"].get<int>()) + ":" +
                       std::to_string(c["backend_handle"].get<int>());
    auto r = run_cli("symbolicate " + delegated() + " " + pair);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string hierarchy = c["module_hierarchy"];
    hierarchy.replace(hierarchy.find("::<unknown>"), 11, "::forward");
    EXPECT_TRUE(contains(r.out, "debug handles " + pair)) << r.out;
    EXPECT_TRUE(contains(r.out, "Module hierarchy:" + hierarchy + "\n")) << r.out;
  }
  auto bad = run_cli("symbolicate " + delegated() + " 36:x");
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace symbolite::cli
