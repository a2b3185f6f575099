// `symbolite graph` and `symbolite export` end to end: the exported model runs on symbolite's
// runtime with PyTorch's outputs and PyTorch's module-level error text, stable handles give
// byte-identical files, and mistakes get clear errors.
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_cli.h"
#include "tests/test_support/scratch_dir.h"
#include "tests/test_support/text.h"

namespace symbolite::cli {
namespace {

using symbolite::testing::contains;
using symbolite::testing::fixture_path;
using symbolite::testing::load_golden;
using symbolite::testing::run_cli;
using symbolite::testing::ScratchDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(GraphCommand, PrintsEveryMethodWithSourcesAndModules) {
  auto r = run_cli("graph " + fixture_path("models/nested.ptl") + " --method forward");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "__torch__.model_defs.Nested.forward:\ngraph(%self."));
  EXPECT_TRUE(contains(
      r.out, "top(Nested)::forward.level1(Level1)::forward.level2(Level2)::forward.aten::add"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "Nested.accumulate:"));
}

TEST(GraphCommand, JsonHasASchemaVersionAndEveryFunction) {
  auto golden = load_golden("nested");
  auto r = run_cli("graph --json " + fixture_path("models/nested.ptl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["functions"].size(), golden["methods"].size());
  EXPECT_EQ(j["functions"][0]["name"], golden["methods"][0]["name"]);
  EXPECT_FALSE(j["functions"][0]["nodes"].empty());
}

TEST(GraphCommand, AnUnknownMethodIsAUsageErrorListingTheMethods) {
  auto r = run_cli("graph " + fixture_path("models/nested.ptl") + " --method nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "no method 'nope'")) << r.err;
  EXPECT_TRUE(contains(r.err, "forward")) << r.err;
}

TEST(ExportCommand, StableHandlesGiveByteIdenticalFiles) {
  ScratchDir dir;
  for (const char* name : {"a.ptl", "b.ptl"}) {
    auto r = run_cli("export " + fixture_path("models/lstm.ptl") + " -o " + dir.file(name) +
                     " --stable-handles");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string a = read_file(dir.file("a.ptl"));
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, read_file(dir.file("b.ptl")));
}

TEST(ExportCommand, TheExportRunsAndFailsAsTheOriginal) {
  ScratchDir dir;
  std::string out = dir.file("nested.export.ptl");
  auto r = run_cli("export " + fixture_path("models/nested.ptl") + " -o " + out + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["schema_version"], 1);
  EXPECT_EQ(report["handles"], "counter");
  // The first golden failing case: same message and module hierarchy on the export.
  auto golden = load_golden("nested");
  const auto& c = golden["cases"][0];
  std::string dir_of_case = fixture_path("run/nested/" + c["name"].get<std::string>());
  std::string inputs =
      " --input " + dir_of_case + "/input_0.npy --input " + dir_of_case + "/input_1.npy";
  auto original = run_cli("run " + fixture_path("models/nested.ptl") + inputs);
  auto exported = run_cli("run " + out + inputs);
  ASSERT_NE(original.exit_code, 0);
  EXPECT_EQ(exported.exit_code, original.exit_code);
  EXPECT_EQ(exported.err, original.err);
  EXPECT_TRUE(contains(exported.err, c["symbolite_module_hierarchy"].get<std::string>()))
      << exported.err;
}

TEST(ExportCommand, UnknownPassIsAUsageError) {
  ScratchDir dir;
  auto r = run_cli("export " + fixture_path("models/nested.ptl") + " -o " + dir.file("x.ptl") +
                   " --passes dce,nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "unknown pass 'nope'")) << r.err;
}

TEST(ExportCommand, AnUnwritableOutputNamesThePath) {
  auto r = run_cli("export " + fixture_path("models/nested.ptl") + " -o /proc/version/x.ptl");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "/proc/version/x.ptl")) << r.err;
}

}  // namespace
}  // namespace symbolite::cli

namespace symbolite::cli {
namespace {

TEST(ExportCommand, AModelWithoutDebugInfoGetsNoneInvented) {
  ScratchDir dir;
  std::string out = dir.file("nodebug.ptl");
  auto r =
      run_cli("export " + fixture_path("models/nested_nodebug.ptl") + " -o " + out + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["debug_handles"], 0);
  auto inspect = run_cli("inspect --json " + out);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_TRUE(nlohmann::json::parse(inspect.out)["debug_info"]["callstack_debug_map"].is_null());
}

}  // namespace
}  // namespace symbolite::cli

namespace symbolite::cli {
namespace {

TEST(GraphCommand, PartitionShowsWhatXnnpackTakesAndWhy) {
  auto r = run_cli("graph " + fixture_path("models/conv1d.ptl") +
                   " --method forward --partition xnnpack");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "2 partition(s) for xnnpack")) << r.out;
  EXPECT_TRUE(contains(r.out, "aten::conv1d has no XNNPACK equivalent")) << r.out;
  auto j = run_cli("graph --json " + fixture_path("models/conv1d.ptl") +
                   " --method forward --partition xnnpack");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto parsed = nlohmann::json::parse(j.out);
  EXPECT_EQ(parsed["backend"], "xnnpack");
  EXPECT_EQ(parsed["functions"][0]["partitions"].size(), 2u);
  auto bad = run_cli("graph " + fixture_path("models/conv1d.ptl") + " --partition tpu");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "unknown backend 'tpu'")) << bad.err;
}

}  // namespace
}  // namespace symbolite::cli
