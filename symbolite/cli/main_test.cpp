// The `symbolite` command itself: --version, help, and mistyped commands.
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_cli.h"

namespace symbolite::cli {
namespace {

using symbolite::testing::run_cli;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace
}  // namespace symbolite::cli

namespace symbolite::cli {
namespace {

TEST(Cli, VersionHelpAndMistypedCommands) {
  auto version = run_cli("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(contains(version.out, "symbolite 0.")) << version.out;
  auto help = run_cli("help export");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "--stable-handles")) << help.out;
  auto typo = run_cli("symbolcate x.ptl 3");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_TRUE(contains(typo.err, "unknown command 'symbolcate' (did you mean 'symbolicate'?); `symbolite help` lists the commands")) << typo.err;
  auto unrelated = run_cli("frobnicate");
  EXPECT_EQ(unrelated.exit_code, 2);
  EXPECT_TRUE(contains(unrelated.err, "unknown command 'frobnicate'; `symbolite help`")) << unrelated.err;
}

}  // namespace
}  // namespace symbolite::cli

namespace symbolite::cli {
namespace {

std::string nested_inputs() {
  std::string dir = symbolite::testing::fixture_path("run/nested/valid_0");
  return " --input " + dir + "/input_0.npy --input " + dir + "/input_1.npy";
}

TEST(Cli, NumericOptionsSayWhatTheyNeed) {
  auto r = run_cli("bench " + symbolite::testing::fixture_path("models/nested.ptl") + nested_inputs() + " --runs 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--runs: must be at least 1, got 0")) << r.err;
  auto w = run_cli("profile " + symbolite::testing::fixture_path("models/nested.ptl") + nested_inputs() + " --warmup x");
  EXPECT_EQ(w.exit_code, 2);
  EXPECT_TRUE(contains(w.err, "must be a whole number, got 'x'")) << w.err;
}

TEST(Cli, MeaninglessFlagCombinationsAreRefused) {
  std::string model = symbolite::testing::fixture_path("models/nested.ptl") + nested_inputs();
  auto details = run_cli("bench " + model + " --profile-details");
  EXPECT_EQ(details.exit_code, 2);
  EXPECT_TRUE(contains(details.err, "--profile")) << details.err;
  auto sort = run_cli("profile " + model + " --sort flops");
  EXPECT_EQ(sort.exit_code, 2);
  EXPECT_TRUE(contains(sort.err, "--sort flops needs --flops")) << sort.err;
  auto both = run_cli("profile " + model + " --trace - --folded -");
  EXPECT_EQ(both.exit_code, 2);
}

TEST(Cli, DashMeansStandardOutput) {
  std::string model = symbolite::testing::fixture_path("models/nested.ptl") + nested_inputs();
  auto r = run_cli("profile " + model + " --trace -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Only the trace is on stdout: it parses as JSON, with trace events.
  auto trace = nlohmann::json::parse(r.out);
  EXPECT_FALSE(trace["traceEvents"].empty());
}

TEST(Cli, RunAndBenchPrintJsonWithASchemaVersion) {
  std::string model = symbolite::testing::fixture_path("models/nested.ptl") + nested_inputs();
  auto run = run_cli("run " + model + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["dtype"], "torch.float32");
  auto bench = run_cli("bench " + model + " --runs 3 --warmup 0 --json");
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  auto b = nlohmann::json::parse(bench.out);
  EXPECT_EQ(b["schema_version"], 1);
  EXPECT_EQ(b["runs"], 3);
  EXPECT_LE(b["min_ms"].get<double>(), b["median_ms"].get<double>());
  // Not a terminal: no progress bar at all, however many runs.
  auto many = run_cli("bench " + model + " --runs 300 --warmup 0");
  ASSERT_EQ(many.exit_code, 0);
  EXPECT_TRUE(many.err.empty()) << many.err.size() << " bytes on stderr";
}

}  // namespace
}  // namespace symbolite::cli

namespace symbolite::cli {
namespace {

TEST(Cli, FileErrorsNameThePathOnceAndTheReason) {
  std::string model = symbolite::testing::fixture_path("models/nested.ptl");
  auto missing = run_cli("run " + model + " --input /nonexistent/in.npy");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "symbolite: not found: /nonexistent/in.npy: cannot open: No such file or directory\n");
  auto unwritable = run_cli("run " + model + nested_inputs() + " --output-dir /proc/version/out");
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_TRUE(contains(unwritable.err, "/proc/version/out: cannot create the output directory: Not a directory"))
      << unwritable.err;
  EXPECT_FALSE(contains(unwritable.err, "internal error"));
}

}  // namespace
}  // namespace symbolite::cli
