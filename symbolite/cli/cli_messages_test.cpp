// The `symbolite` command's messages as users meet them: --version, help, unknown commands,
// numeric ranges, meaningless flag pairs, output paths ("-" is stdout), JSON schema_version
// for every command that prints results, and the bench progress bar off a terminal.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_cli.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::cli {
namespace {

using symbolite::testing::direct_call;
using symbolite::testing::fixture_path;
using symbolite::testing::nested;
using symbolite::testing::run_cli;
using symbolite::testing::ScratchDir;

void expect_usage_error(const std::string& args, const std::string& message) {
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(r.err, "symbolite: usage error: " + message + "\n") << args;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliMessages, VersionPrintsTheProjectVersion) {
  auto r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("symbolite ") + SYMBOLITE_TEST_VERSION + "\n");
}

TEST(CliMessages, HelpListsCommandsAndHelpCommandPrintsItsOptions) {
  auto all = run_cli("help");
  EXPECT_EQ(all.exit_code, 0) << all.err;
  for (const char* name : {"inspect", "operators", "symbolicate", "split", "run", "profile",
                           "bench", "graph", "export"}) {
    EXPECT_NE(all.out.find(name), std::string::npos) << name;
  }
  auto bench = run_cli("help bench");
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_NE(bench.out.find("--runs"), std::string::npos) << bench.out;
  EXPECT_NE(bench.out.find("--profile-details"), std::string::npos);
  EXPECT_EQ(bench.out.find("A subcommand is required"), std::string::npos);
  expect_usage_error("help benhc", "unknown command 'benhc'; did you mean 'bench'?");
}

TEST(CliMessages, UnknownCommandSuggestsTheClosest) {
  expect_usage_error("symbolcate x 1", "unknown command 'symbolcate'; did you mean 'symbolicate'?");
  expect_usage_error("inpsect x", "unknown command 'inpsect'; did you mean 'inspect'?");
  expect_usage_error(
      "frobnicate x",
      "unknown command 'frobnicate'; commands: inspect, operators, symbolicate, check, split, run, "
      "profile, bench, graph, export, lower, explain, minify");
}

TEST(CliMessages, NumericOptionsHaveReadableRanges) {
  expect_usage_error("bench " + direct_call() + " --runs 0", "--runs must be at least 1");
  expect_usage_error("bench " + direct_call() + " --warmup -1", "--warmup must be at least 0");
  expect_usage_error("profile " + direct_call() + " --runs 0", "--runs must be at least 1");
  expect_usage_error("profile " + direct_call() + " --warmup -2", "--warmup must be at least 0");
  // Not a number, or too large for one: CLI11's parse errors, worded and prefixed as ours.
  std::string hint = "Run 'symbolite help' or 'symbolite help COMMAND' for the options.\n";
  auto word = run_cli("bench " + direct_call() + " --runs abc");
  EXPECT_EQ(word.exit_code, 2);
  EXPECT_EQ(word.err, "symbolite: usage error: --runs: 'abc' is not a whole number\n" + hint);
  auto huge = run_cli("profile " + direct_call() + " --warmup 99999999999");
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_EQ(
      huge.err,
      "symbolite: usage error: --warmup: 99999999999 is too large (at most 2147483647)\n" + hint);
}

TEST(CliMessages, MeaninglessFlagCombinationsAreUsageErrors) {
  expect_usage_error("bench " + direct_call() + " --profile-details",
                     "--profile-details needs --profile");
  expect_usage_error("profile " + direct_call() + " --sort flops", "--sort flops needs --flops");
  expect_usage_error("profile " + direct_call() + " --sort memory", "--sort memory needs --memory");
  expect_usage_error("profile " + direct_call() + " --trace - --folded -",
                     "--trace - and --folded - cannot both write to stdout");
  EXPECT_EQ(run_cli("bench " + direct_call() + " --runs 2 --profile --profile-details").exit_code,
            0);
  EXPECT_EQ(run_cli("profile " + direct_call() + " --flops --sort flops").exit_code, 0);
}

TEST(CliMessages, MissingInputNamesThePathOnce) {
  std::string missing = "/nonexistent_dir/in.npy";
  auto r = run_cli("run " + nested() + " --input " + missing);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "symbolite: not found: " + missing + ": cannot open: No such file or directory\n");
  EXPECT_TRUE(r.out.empty());
}

// A directory where a file belongs (found by the input_json fuzzer: `{"$tensor": "/"}`) and a
// device or FIFO are errors naming the path, never a crash, an endless read or a hang.
TEST(CliMessages, DirectoriesAndEndlessDevicesAreRefusedByName) {
  ScratchDir scratch;
  const std::string dir = scratch.path().string();
  auto model = run_cli("inspect " + dir);
  EXPECT_EQ(model.exit_code, 1);
  EXPECT_EQ(model.err, "symbolite: i/o error: " + dir + ": is a directory, not a file\n");
  auto input = run_cli("run " + nested() + " --input " + dir);
  EXPECT_EQ(input.exit_code, 1);
  EXPECT_EQ(input.err, "symbolite: i/o error: " + dir + ": is a directory, not a file\n");
  {
    std::ofstream json(scratch.file("in.json"));
    json << R"({"$tensor": "/"})";
  }
  auto in_json = run_cli("run " + nested() + " --input " + scratch.file("in.json"));
  EXPECT_EQ(in_json.exit_code, 1);
  EXPECT_EQ(in_json.err, "symbolite: i/o error: /: is a directory, not a file\n");
  auto endless = run_cli("inspect /dev/zero");
  EXPECT_EQ(endless.exit_code, 1);
  EXPECT_EQ(endless.err,
            "symbolite: i/o error: /dev/zero: is not a regular file (a device, FIFO or socket); "
            "save it to a file first\n");
  ASSERT_EQ(::mkfifo(scratch.file("fifo").c_str(), 0600), 0);  // no writer: opening it would block
  auto fifo = run_cli("run " + nested() + " --input " + scratch.file("fifo"));
  EXPECT_EQ(fifo.exit_code, 1);
  EXPECT_EQ(fifo.err,
            "symbolite: i/o error: " + scratch.file("fifo") +
                ": is not a regular file (a device, FIFO or socket); save it to a file first\n");
  EXPECT_TRUE(model.out.empty() && input.out.empty() && in_json.out.empty() && endless.out.empty());
}

TEST(CliMessages, OutputDirIsCreatedOneLevelOnlyAndErrorsNameThePath) {
  ScratchDir scratch;
  // A missing directory whose parent exists is created.
  auto ok = run_cli("run " + direct_call() + " --output-dir " + scratch.file("out"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(std::filesystem::exists(scratch.file("out/output_0.npy")));
  // A missing parent is refused, and nothing is created.
  auto deep = run_cli("run " + direct_call() + " --output-dir " + scratch.file("a/b"));
  EXPECT_EQ(deep.exit_code, 1);
  EXPECT_EQ(deep.err, "symbolite: i/o error: " + scratch.file("a/b") + ": parent directory '" +
                          scratch.file("a") + "' does not exist\n");
  EXPECT_FALSE(std::filesystem::exists(scratch.file("a")));
  EXPECT_TRUE(deep.out.empty());
  // Under a file: not a directory, and no "internal error".
  auto under_file = run_cli("run " + direct_call() + " --output-dir " + nested() + "/out");
  EXPECT_EQ(under_file.exit_code, 1);
  EXPECT_EQ(under_file.err,
            "symbolite: i/o error: " + nested() + "/out: '" + nested() + "' is not a directory\n");
  // Unwritable (even for root: /proc refuses new directories).
  auto unwritable = run_cli("run " + direct_call() + " --output-dir /proc/symbolite_out");
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_EQ(unwritable.err.rfind(
                "symbolite: i/o error: /proc/symbolite_out: cannot create directory: ", 0),
            0u)
      << unwritable.err;
  EXPECT_EQ(unwritable.err.find("internal error"), std::string::npos);
}

TEST(CliMessages, OutputFileWithMissingParentIsRefused) {
  auto trace = run_cli("profile " + direct_call() + " --trace /nonexistent_dir/t.json");
  EXPECT_EQ(trace.exit_code, 1);
  EXPECT_EQ(trace.err,
            "symbolite: i/o error: /nonexistent_dir/t.json: directory '/nonexistent_dir' does not "
            "exist\n");
  EXPECT_TRUE(trace.out.empty());
  auto exported = run_cli("export " + nested() + " -o /nonexistent_dir/x.ptl");
  EXPECT_EQ(exported.exit_code, 1);
  EXPECT_EQ(exported.err,
            "symbolite: i/o error: /nonexistent_dir/x.ptl: directory '/nonexistent_dir' does not "
            "exist\n");
  expect_usage_error("export " + nested() + " -o -",
                     "-o -: this output is binary and cannot go to stdout; name a file");
}

TEST(CliMessages, DashWritesTraceAndFoldedToStdoutAlone) {
  ASSERT_FALSE(std::filesystem::exists("-"));
  auto trace = run_cli("profile " + direct_call() + " --trace -");
  ASSERT_EQ(trace.exit_code, 0) << trace.err;
  auto j = nlohmann::json::parse(trace.out);  // the trace alone: no table after it
  EXPECT_TRUE(j["traceEvents"].is_array());
  EXPECT_FALSE(std::filesystem::exists("-"));  // no file named "-" in the working directory
  auto folded = run_cli("profile " + direct_call() + " --folded -");
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_EQ(folded.out.rfind("top(Nested);aten::mm ", 0), 0u) << folded.out;
  EXPECT_EQ(folded.out.find("Self"), std::string::npos) << folded.out;
}

TEST(CliMessages, EveryJsonOutputHasSchemaVersionOne) {
  ScratchDir scratch;
  std::string handle =
      std::to_string(testing::load_golden("nested")["cases"][0]["handle"].get<int>());
  for (const std::string& args :
       {"inspect --json " + nested(), "symbolicate --json " + nested() + " " + handle,
        "run --json " + direct_call(), "profile --json " + direct_call(),
        "bench --json --runs 2 " + direct_call(), "graph --json " + nested(),
        "export --json " + nested() + " -o " + scratch.file("e.ptl"),
        "split --json " + nested() + " --out " + scratch.file("s.ptl") + " --debug " +
            scratch.file("s.symdbg")}) {
    auto r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema_version"], 1) << args;
  }
}

TEST(CliMessages, RunAndBenchJsonFields) {
  auto run = nlohmann::json::parse(run_cli("run --json " + direct_call()).out);
  EXPECT_EQ(run["method"], "direct");
  ASSERT_EQ(run["outputs"].size(), 1u);
  EXPECT_EQ(run["outputs"][0]["dtype"], "torch.float32");
  EXPECT_EQ(run["outputs"][0]["shape"], nlohmann::json::parse("[2, 4]"));
  EXPECT_TRUE(run["outputs"][0]["file"].is_null());
  auto bench =
      nlohmann::json::parse(run_cli("bench --json --runs 5 --warmup 0 " + direct_call()).out);
  EXPECT_EQ(bench["runs"], 5);
  EXPECT_EQ(bench["warmup"], 0);
  EXPECT_EQ(bench["profile"], "off");
  EXPECT_LE(bench["min_ms"].get<double>(), bench["median_ms"].get<double>());
  EXPECT_LE(bench["median_ms"].get<double>(), bench["p90_ms"].get<double>());
}

TEST(CliMessages, BenchPrintsNoProgressOffATerminal) {
  auto r = run_cli("bench " + direct_call() + " --runs 3000 --warmup 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err.size() << " bytes on stderr";
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find("3000 runs"), std::string::npos) << r.out;
}

// On a terminal (a pseudo-terminal from util-linux's `script`), 100000 fast runs redraw the
// bar at most ten times a second (and once at the end), not 100000 times (that was ~4 MB).
// The bound follows from the command's own wall time, so a slow (sanitizer, loaded) machine
// cannot fail it.
TEST(CliMessages, BenchProgressOnATerminalIsThrottled) {
  if (!std::filesystem::exists("/usr/bin/script")) GTEST_SKIP() << "no util-linux script";
  std::string command = "/usr/bin/script -qfc '" + std::string(SYMBOLITE_CLI_PATH) + " bench " +
                        direct_call() + " --runs 100000 --warmup 0' /dev/null";
  const auto start = std::chrono::steady_clock::now();
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string terminal;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    terminal.append(buffer, n);
  ASSERT_EQ(::pclose(pipe), 0) << terminal;
  const auto tenths = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - start)
                          .count() /
                      100;
  EXPECT_NE(terminal.find("/100000"), std::string::npos) << terminal;  // the bar was drawn
  EXPECT_NE(terminal.find("100000 runs"), std::string::npos) << terminal;
  std::size_t redraws = 0;
  for (auto at = terminal.find("\r["); at != std::string::npos; at = terminal.find("\r[", at + 1))
    ++redraws;
  EXPECT_GE(redraws, 1u);
  EXPECT_LE(redraws, static_cast<std::size_t>(tenths) + 2) << "redrawn too often";
}

}  // namespace
}  // namespace symbolite::cli
