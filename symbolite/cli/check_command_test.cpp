// `symbolite check` on models PyTorch 1.13 wrote: a clean model passes, a model whose debug
// info will not answer fails (exit 1) naming what and where, warnings fail only with --strict.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

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

nlohmann::json check_json(const std::string& args, int expected_exit) {
  auto r = run_cli("check --json " + args);
  EXPECT_EQ(r.exit_code, expected_exit) << args << "\n" << r.err << r.out;
  return nlohmann::json::parse(r.out);
}

std::vector<std::string> codes(const nlohmann::json& j) {
  std::vector<std::string> out;
  for (const auto& f : j["findings"]) out.push_back(f["code"]);
  return out;
}

TEST(CheckCommand, ACleanModelPasses) {
  for (const char* model : {"models/nested.ptl", "models/delegated.ptl", "models/lstm.ptl"}) {
    auto j = check_json(fixture_path(model), 0);
    EXPECT_TRUE(j["passed"].get<bool>()) << model;
    EXPECT_EQ(j["errors"], 0) << model << j.dump(1);
    EXPECT_EQ(j["warnings"], 0) << model << j.dump(1);
    EXPECT_GT(j["handles"].get<int>(), 0);
  }
  auto text = run_cli("check " + fixture_path("models/nested.ptl"));
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("ok: every instruction's handle resolves"), std::string::npos)
      << text.out;
}

TEST(CheckCommand, LostSourceRangesWarnAndFailOnlyWhenStrict) {
  // tag_minus_one.ptl: PyTorch wrote tag -1 for a node, and cannot load its own file.
  auto j = check_json(fixture_path("models/tag_minus_one.ptl"), 0);
  auto found = codes(j);
  EXPECT_NE(std::find(found.begin(), found.end(), "lost-source"), found.end()) << j.dump(1);
  EXPECT_NE(std::find(found.begin(), found.end(), "pytorch-refuses"), found.end()) << j.dump(1);
  for (const auto& f : j["findings"]) {
    EXPECT_EQ(f["severity"], "warning");
    if (f["code"] == "lost-source") {
      EXPECT_TRUE(f["handle"].is_number());
      EXPECT_TRUE(f["function"].get<std::string>().ends_with(".forward"));
      EXPECT_NE(f["message"].get<std::string>().find("tag -1"), std::string::npos);
    }
  }
  auto strict = check_json("--strict " + fixture_path("models/tag_minus_one.ptl"), 1);
  EXPECT_FALSE(strict["passed"].get<bool>());
  // A lost call-site frame only (PyTorch drops the frame and loads the file): no
  // pytorch-refuses warning.
  auto frame = check_json(fixture_path("models/tag_minus_one_frame.ptl"), 0);
  auto frame_codes = codes(frame);
  EXPECT_NE(std::find(frame_codes.begin(), frame_codes.end(), "lost-source"), frame_codes.end());
  EXPECT_EQ(std::find(frame_codes.begin(), frame_codes.end(), "pytorch-refuses"), frame_codes.end())
      << frame.dump(1);
}

TEST(CheckCommand, AStrippedModelNeedsItsSidecar) {
  ScratchDir scratch;
  auto split = run_cli("split " + fixture_path("models/nested.ptl") + " --out " +
                       scratch.file("s.ptl") + " --debug " + scratch.file("s.symdbg"));
  ASSERT_EQ(split.exit_code, 0) << split.err;
  auto alone = check_json(scratch.file("s.ptl"), 1);
  EXPECT_EQ(codes(alone), std::vector<std::string>{"no-debug-info"});
  auto with = check_json(scratch.file("s.ptl") + " --debug " + scratch.file("s.symdbg"), 0);
  EXPECT_EQ(with["errors"], 0) << with.dump(1);
  EXPECT_GT(with["handles"].get<int>(), 0);

  auto other = run_cli("split " + fixture_path("models/lstm.ptl") + " --out " +
                       scratch.file("o.ptl") + " --debug " + scratch.file("o.symdbg"));
  ASSERT_EQ(other.exit_code, 0) << other.err;
  auto mismatch = check_json(scratch.file("s.ptl") + " --debug " + scratch.file("o.symdbg"), 1);
  EXPECT_EQ(codes(mismatch), std::vector<std::string>{"sidecar-mismatch"});
}

// A missing operator is a warning: the model loads and runs where it does not reach it
// (tests/fixtures/make_missing_op_model.py); --strict makes it an error.
TEST(CheckCommand, MissingOperatorsAreWarnings) {
  auto missing = check_json(fixture_path("models/missing_op.ptl"), 0);
  ASSERT_EQ(codes(missing), std::vector<std::string>{"missing-operator"}) << missing.dump(1);
  EXPECT_EQ(missing["findings"][0]["severity"], "warning");
  EXPECT_NE(missing["findings"][0]["message"].get<std::string>().find("aten::fft_rfft (used in "),
            std::string::npos);
  auto text = run_cli("check " + fixture_path("models/missing_op.ptl"));
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("warning [missing-operator]"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("0 errors, 1 warning"), std::string::npos) << text.out;
  EXPECT_EQ(run_cli("check --strict " + fixture_path("models/missing_op.ptl")).exit_code, 1);
}

}  // namespace
}  // namespace symbolite::cli
