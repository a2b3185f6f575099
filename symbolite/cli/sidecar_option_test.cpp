// `run --debug SIDECAR` and `profile --debug SIDECAR`: a stripped model with its sidecar fails
// and profiles as the full model does (PyTorch's module hierarchy and traceback, from
// tests/fixtures/run/manifest.json), and a sidecar of another model is refused.
#include <fstream>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_cli.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::cli {
namespace {

using symbolite::testing::fixture_path;
using symbolite::testing::run_cli;
using symbolite::testing::ScratchDir;

nlohmann::json manifest_case(const std::string& dir) {
  std::ifstream in(fixture_path("run/manifest.json"));
  for (const auto& c : nlohmann::json::parse(in)) {
    if (c["dir"] == dir) return c;
  }
  return {};
}

std::string inputs_of(const std::string& dir) {
  std::string d = fixture_path("run/" + dir + "/");
  return " --input " + d + "input_0.npy --input " + d + "input_1.npy";
}

void split(const ScratchDir& scratch, const std::string& model, const std::string& name) {
  auto r = run_cli("split " + fixture_path("models/" + model) + " --out " +
                   scratch.file(name + ".ptl") + " --debug " + scratch.file(name + ".symdbg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(SidecarOption, AStrippedModelFailsWithPyTorchsHierarchyAndTraceback) {
  ScratchDir scratch;
  split(scratch, "nested.ptl", "s");
  auto c = manifest_case("nested/broadcast_three_deep");
  ASSERT_FALSE(c.is_null());
  const std::string run = "run " + scratch.file("s.ptl") + inputs_of("nested/broadcast_three_deep");

  auto alone = run_cli(run);
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_NE(alone.err.find("The model carries no call stacks"), std::string::npos) << alone.err;

  auto with = run_cli(run + " --debug " + scratch.file("s.symdbg"));
  EXPECT_EQ(with.exit_code, 1);
  EXPECT_NE(with.err.find("Module hierarchy:" + c["module_hierarchy"].get<std::string>() + "\n"),
            std::string::npos)
      << with.err;
  EXPECT_NE(with.err.find(c["traceback"].get<std::string>()), std::string::npos) << with.err;
  EXPECT_TRUE(with.out.empty());
}

TEST(SidecarOption, AProfileOfAStrippedModelHasTheFullModelsModules) {
  ScratchDir scratch;
  split(scratch, "nested.ptl", "s");
  const std::string args = inputs_of("nested/valid_0") + " --json";
  auto full = run_cli("profile " + fixture_path("models/nested.ptl") + args);
  auto stripped =
      run_cli("profile " + scratch.file("s.ptl") + args + " --debug " + scratch.file("s.symdbg"));
  ASSERT_EQ(full.exit_code, 0) << full.err;
  ASSERT_EQ(stripped.exit_code, 0) << stripped.err;
  EXPECT_EQ(stripped.err.find("carries no call stacks"), std::string::npos) << stripped.err;

  // The same tree of modules with the same operator counts (times differ run to run).
  std::function<nlohmann::json(const nlohmann::json&)> shape = [&](const nlohmann::json& node) {
    nlohmann::json out = {
        {"module", node["module"]}, {"ops", node["ops"]}, {"children", nlohmann::json::array()}};
    for (const auto& child : node["children"]) out["children"].push_back(shape(child));
    return out;
  };
  auto modules = nlohmann::json::parse(stripped.out)["modules"];
  EXPECT_EQ(shape(modules), shape(nlohmann::json::parse(full.out)["modules"]));
  EXPECT_FALSE(modules["children"].empty());
}

TEST(SidecarOption, ASidecarOfAnotherModelIsRefused) {
  ScratchDir scratch;
  split(scratch, "nested.ptl", "s");
  split(scratch, "lstm.ptl", "other");
  auto r = run_cli("run " + scratch.file("s.ptl") + inputs_of("nested/valid_0") + " --debug " +
                   scratch.file("other.symdbg"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("belongs to model"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  auto p = run_cli("profile " + scratch.file("s.ptl") + inputs_of("nested/valid_0") + " --debug " +
                   scratch.file("s.ptl"));
  EXPECT_NE(p.exit_code, 0);
}

}  // namespace
}  // namespace symbolite::cli
