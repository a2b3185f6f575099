// `symbolite profile` end to end on nested.ptl's `direct` (one aten::mm of [2, 3] x [3, 4],
// which PyTorch's profiler counts as 48 FLOPs: tests/fixtures/profile/expected.json): the
// JSON tables, the Chrome trace's operator args, and usage errors.
#include <fstream>
#include <iterator>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_cli.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::cli {
namespace {

using symbolite::testing::direct_call;
using symbolite::testing::fixture_path;
using symbolite::testing::run_cli;

std::int64_t pytorch_flops_of_direct() {
  std::ifstream in(fixture_path("profile/expected.json"));
  for (const auto& c : nlohmann::json::parse(in)) {
    if (c["dir"] == "nested/valid_2") return c["events"][0]["flops"];
  }
  return -1;
}

TEST(ProfileCommand, JsonTablesCarryShapesFlopsAndMemory) {
  testing::ScratchDir scratch;
  auto r =
      run_cli("profile " + direct_call() + " --runs 3 --shapes --flops --memory --json --trace " +
              scratch.file("trace.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["events"], 3);
  ASSERT_EQ(j["operators"].size(), 1u);
  const auto& mm = j["operators"][0];
  EXPECT_EQ(mm["op"], "aten::mm");
  EXPECT_EQ(mm["count"], 3);
  EXPECT_EQ(mm["input_shapes"], "[[2, 3], [3, 4]]");
  EXPECT_EQ(mm["flops"], 3 * pytorch_flops_of_direct());
  EXPECT_EQ(mm["bytes_allocated"], 3 * 2 * 4 * 4);  // three float32 [2, 4] results
  EXPECT_EQ(j["modules"]["module"], "top(Nested)");
  EXPECT_EQ(j["modules"]["flops"], mm["flops"]);

  std::ifstream in(scratch.file("trace.json"));
  auto trace = nlohmann::json::parse(in);
  int operators = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("cat", "") != "operator") continue;
    ++operators;
    EXPECT_EQ(e["args"]["Input Dims"], nlohmann::json::parse("[[2, 3], [3, 4]]"));
    EXPECT_EQ(e["args"]["Input type"], nlohmann::json::parse(R"(["float32", "float32"])"));
    EXPECT_EQ(e["args"]["Output Dims"], nlohmann::json::parse("[[2, 4]]"));
    EXPECT_EQ(e["args"]["flops"], pytorch_flops_of_direct());
  }
  EXPECT_EQ(operators, 3);
}

TEST(ProfileCommand, TextTablesShowTheRequestedColumns) {
  auto plain = run_cli("profile " + direct_call());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("FLOPs"), std::string::npos);
  // A totals row: one aten::mm call, all of the time.
  const auto total = plain.out.find("\ntotal ");
  ASSERT_NE(total, std::string::npos) << plain.out;
  const std::string row = plain.out.substr(total + 1, plain.out.find('\n', total + 1) - total - 1);
  EXPECT_EQ(row.substr(row.find_first_not_of(' ', 5), 2), "1 ") << row;  // one call
  EXPECT_TRUE(row.ends_with("100.00%  100.00%")) << row;
  auto detailed = run_cli("profile " + direct_call() + " --flops --memory --by module");
  ASSERT_EQ(detailed.exit_code, 0) << detailed.err;
  EXPECT_NE(detailed.out.find("FLOPs"), std::string::npos);
  EXPECT_NE(detailed.out.find("allocated"), std::string::npos);
  EXPECT_NE(detailed.out.find("top(Nested)"), std::string::npos);
  // [2, 4] float32 result: 32 bytes, in bytes; the FLOPs scaled to their unit.
  EXPECT_NE(detailed.out.find(" 32 B"), std::string::npos) << detailed.out;
  EXPECT_NE(detailed.out.find(std::to_string(pytorch_flops_of_direct()) + " FLOP"),
            std::string::npos)
      << detailed.out;
}

TEST(ProfileCommand, GroupByNameJoinsOverloadsAsTorchProfilerNamesThem) {
  std::string dir = fixture_path("run/nested/valid_0/");
  std::string call = "profile " + fixture_path("models/nested.ptl") + " --input " + dir +
                     "input_0.npy " + dir + "input_1.npy --json";
  auto overloads = nlohmann::json::parse(run_cli(call).out)["operators"];
  auto names = nlohmann::json::parse(run_cli(call + " --group-by name").out)["operators"];
  std::map<std::string, std::uint64_t> expected;
  for (const auto& row : overloads) {
    std::string op = row["op"];
    auto dot = op.find('.', op.find("::") + 2);
    expected[op.substr(0, dot)] += row["count"].get<std::uint64_t>();
  }
  std::map<std::string, std::uint64_t> got;
  for (const auto& row : names) got[row["op"]] += row["count"].get<std::uint64_t>();
  EXPECT_EQ(got, expected);
  EXPECT_TRUE(got.count("aten::add")) << names.dump();
  EXPECT_FALSE(got.count("aten::add.Tensor"));
  auto bad = run_cli(call + " --group-by module");
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(ProfileCommand, UnknownSortKeyIsAUsageError) {
  auto r = run_cli("profile " + direct_call() + " --sort fastest");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
}

TEST(ProfileCommand, SvgFlameGraphAndHtmlReport) {
  symbolite::testing::ScratchDir scratch;
  auto r = run_cli("profile " + fixture_path("models/nested.ptl") + " --input " +
                   fixture_path("run/nested/valid_0/input_0.npy") + " " +
                   fixture_path("run/nested/valid_0/input_1.npy") + " --runs 3 --svg " +
                   scratch.file("flame.svg") + " --report " + scratch.file("report.html"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream svg_in(scratch.file("flame.svg"));
  std::string svg((std::istreambuf_iterator<char>(svg_in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(svg.starts_with("<svg")) << svg.substr(0, 100);
  // The stacks are the model's modules, then its operators, as the debug info names them.
  EXPECT_NE(svg.find(">top(Nested) — "), std::string::npos);
  EXPECT_NE(svg.find(">level1(Level1) — "), std::string::npos);
  EXPECT_NE(svg.find("<title>aten::linear — "), std::string::npos);
  std::ifstream html_in(scratch.file("report.html"));
  std::string html((std::istreambuf_iterator<char>(html_in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(html.find("<title>nested.ptl forward, 3 runs</title>"), std::string::npos);
  EXPECT_NE(html.find("<td>aten::linear</td>"), std::string::npos);
  // Modules say where they are called from, operators where they spend most time: lines of
  // the model's source (tests/fixtures/model_defs.py) and of torch.nn's.
  EXPECT_NE(html.find("model_defs.py:"), std::string::npos);
  EXPECT_NE(html.find("torch/nn/modules/linear.py:"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  auto dash = run_cli("profile " + direct_call() + " --report -");
  EXPECT_EQ(dash.exit_code, 2);
}

}  // namespace
}  // namespace symbolite::cli
