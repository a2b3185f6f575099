// What symbolite writes and prints when files and inputs are hostile: no input is overwritten
// or used as an output, outputs never go through a symlink and land all or nothing, a failing
// command prints nothing on stdout, and names and source text from a file reach the terminal
// escaped (tests/hostile/control_chars.ptl: "Nested" replaced by ESC, BEL, NUL and 0xFF).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_cli.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::cli {
namespace {

namespace fs = std::filesystem;
using symbolite::testing::fixture_path;
using symbolite::testing::run_cli;
using symbolite::testing::ScratchDir;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string hostile(const std::string& name) {
  return (fs::path(fixture_path("models/nested.ptl")).parent_path().parent_path().parent_path() /
          "hostile" / name)
      .string();
}

std::string direct_inputs() {
  std::string dir = fixture_path("run/nested/valid_2/");
  return " --method direct --input " + dir + "input_0.npy " + dir + "input_1.npy";
}

bool has_raw_control(const std::string& text) {
  for (unsigned char c : text) {
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c >= 0x80) return true;
  }
  return false;
}

TEST(OutputSafety, SplitNeverReplacesItsInput) {
  ScratchDir scratch;
  const std::string model = scratch.file("a.ptl");
  fs::copy_file(fixture_path("models/nested.ptl"), model);
  const std::string before = read_bytes(model);
  auto out = run_cli("split " + model + " --out " + model + " --debug " + scratch.file("a.symdbg"));
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.err, "symbolite: usage error: --out " + model + ": is the input MODEL " + model +
                         "; symbolite never overwrites what it reads: choose another path\n");
  // Through another spelling of the same path too.
  auto debug = run_cli("split " + model + " --out " + scratch.file("s.ptl") + " --debug " +
                       scratch.path().string() + "/./a.ptl");
  EXPECT_EQ(debug.exit_code, 2) << debug.err;
  EXPECT_EQ(read_bytes(model), before);
  EXPECT_FALSE(fs::exists(scratch.file("a.symdbg")));
  EXPECT_FALSE(fs::exists(scratch.file("s.ptl")));

  auto same =
      run_cli("split " + model + " --out " + scratch.file("x") + " --debug " + scratch.file("x"));
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_EQ(same.err, "symbolite: usage error: --out " + scratch.file("x") + " and --debug " +
                          scratch.file("x") + " are the same file: choose two paths\n");
  EXPECT_FALSE(fs::exists(scratch.file("x")));
  EXPECT_TRUE(out.out.empty() && debug.out.empty() && same.out.empty());
  // Only the two outputs are left by a split that works: no temporaries.
  auto ok = run_cli("split " + model + " --out " + scratch.file("s.ptl") + " --debug " +
                    scratch.file("s.symdbg"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(scratch.path())) ++files;
  EXPECT_EQ(files, 3u);
}

TEST(OutputSafety, ProfileTraceOntoAnInputIsRefused) {
  ScratchDir scratch;
  const std::string dir = fixture_path("run/nested/valid_2/");
  const std::string input = scratch.file("in.npy");
  fs::copy_file(dir + "input_0.npy", input);
  const std::string before = read_bytes(input);
  auto r = run_cli("profile " + fixture_path("models/nested.ptl") + " --method direct --input " +
                   input + " " + dir + "input_1.npy --trace " + input);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "symbolite: usage error: --trace " + input + ": is the input --input " + input +
                       "; symbolite never overwrites what it reads: choose another path\n");
  EXPECT_EQ(read_bytes(input), before);
  // export onto its own model (a scratch copy: a failure here must not destroy a fixture).
  const std::string model = scratch.file("m.ptl");
  fs::copy_file(fixture_path("models/nested.ptl"), model);
  const std::string model_before = read_bytes(model);
  auto exported = run_cli("export " + model + " -o " + model);
  EXPECT_EQ(exported.exit_code, 2) << exported.err;
  EXPECT_EQ(read_bytes(model), model_before);
}

TEST(OutputSafety, OutputsReplaceSymlinksInsteadOfWritingThroughThem) {
  ScratchDir scratch;
  const std::string victim = scratch.file("victim.txt");
  { std::ofstream(victim) << "keep me\n"; }
  fs::create_directory(scratch.file("out"));
  fs::create_symlink(victim, scratch.file("out/output_0.npy"));
  auto r = run_cli("run " + fixture_path("models/nested.ptl") + direct_inputs() + " --output-dir " +
                   scratch.file("out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_bytes(victim), "keep me\n");
  EXPECT_FALSE(fs::is_symlink(scratch.file("out/output_0.npy")));
  EXPECT_EQ(read_bytes(scratch.file("out/output_0.npy")).substr(0, 6), "\x93NUMPY");
}

TEST(OutputSafety, OutputsLandAllOrNothing) {
  ScratchDir scratch;
  fs::create_directories(scratch.file("out/result.json"));  // a directory where a file goes
  auto r = run_cli("run " + fixture_path("models/nested.ptl") + direct_inputs() + " --output-dir " +
                   scratch.file("out"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "symbolite: i/o error: " + scratch.file("out/result.json") +
                       ": cannot write: Is a directory\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(scratch.file("out"))) ++files;
  EXPECT_EQ(files, 1u);  // only the directory that was there: no output_0.npy, no temporaries
}

TEST(OutputSafety, AFailingCommandPrintsNothingOnStdout) {
  for (const char* name : {"bytecode_empty.ptl", "flip_central_crc.ptl", "callstack_row_arity.ptl",
                           "debug_pkl_table_amplified.ptl"}) {
    auto inspect = run_cli("inspect " + hostile(name));
    EXPECT_EQ(inspect.exit_code, 1) << name;
    EXPECT_TRUE(inspect.out.empty()) << name << ": " << inspect.out;
    auto json = run_cli("inspect --json " + hostile(name));
    EXPECT_TRUE(json.out.empty()) << name << ": " << json.out;
  }
}

TEST(OutputSafety, NamesAndSourceFromTheFileAreEscaped) {
  const std::string model = hostile("control_chars.ptl");
  auto inspect = run_cli("inspect " + model);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_FALSE(has_raw_control(inspect.out));
  EXPECT_NE(inspect.out.find("Ne\\x1b\\x07\\x00\\xff"), std::string::npos) << inspect.out;

  auto symbolicate = run_cli("symbolicate " + model + " 1 5 40");
  EXPECT_FALSE(has_raw_control(symbolicate.out));
  EXPECT_NE(symbolicate.out.find("Ne\\x1b\\x07\\x00\\xff"), std::string::npos) << symbolicate.out;

  // --json stays valid UTF-8 (invalid bytes replaced), so any JSON parser reads it.
  for (const char* command : {"inspect --json ", "symbolicate --json "}) {
    std::string args = std::string(command) + model + (command[0] == 's' ? " 1 5 40" : "");
    auto r = run_cli(args);
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << args;
  }

  // A failing run: the traceback is escaped and whole, not cut at the NUL.
  const std::string failing = fixture_path("run/nested/broadcast_three_deep/");
  auto run =
      run_cli("run " + model + " --input " + failing + "input_0.npy " + failing + "input_1.npy");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(run.out.empty());
  EXPECT_FALSE(has_raw_control(run.err)) << run.err;
  // The module hierarchy names the top module's type after the NUL, and the traceback follows.
  EXPECT_NE(run.err.find("Ne\\x1b\\x07\\x00\\xff"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("Traceback of TorchScript"), std::string::npos) << run.err;
}

// Lines of `text` that start with `fragment` (what follows a newline inside a name).
bool a_line_starts_with(const std::string& text, const std::string& fragment) {
  return text.starts_with(fragment) || text.find("\n" + fragment) != std::string::npos;
}

TEST(OutputSafety, ANewlineInsideANameStaysOnItsLine) {
  // tests/hostile/newline_names.ptl: module instance "le\nel1", source file "model\ndefs.py";
  // newline_op.ptl: operator "aten::t\nnh" (no kernel).
  const std::string model = hostile("newline_names.ptl");
  const std::string failing = fixture_path("run/nested/broadcast_three_deep/");
  const std::string valid = fixture_path("run/nested/valid_0/");
  struct Case {
    std::string args;
    int exit_code;
  };
  const Case cases[] = {
      {"inspect " + model, 0},
      {"symbolicate " + model + " 28 5 40", 0},
      {"run " + model + " --input " + failing + "input_0.npy " + failing + "input_1.npy", 1},
      {"profile " + model + " --by module --input " + valid + "input_0.npy " + valid +
           "input_1.npy",
       0},
      {"profile " + model + " --folded - --input " + valid + "input_0.npy " + valid + "input_1.npy",
       0},
  };
  for (const auto& c : cases) {
    auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    const std::string all = r.out + r.err;
    EXPECT_NE(all.find("le\\x0ael1"), std::string::npos) << c.args << "\n" << all;
    for (const char* fragment : {"el1(Level1)", "el1 (", "defs.py\""}) {
      EXPECT_FALSE(a_line_starts_with(all, fragment))
          << c.args << ": a line starts with " << fragment << "\n"
          << all;
    }
  }
  auto traceback = run_cli(cases[1].args);
  EXPECT_NE(traceback.out.find("File \"tests/fixtures/model\\x0adefs.py\", line 117"),
            std::string::npos)
      << traceback.out;

  // A run that reaches the missing operator names it on one line; the list of uses `check`
  // prints keeps one line per use, the name escaped in each.
  auto missing = run_cli("run " + hostile("newline_op.ptl") + " --input " + valid + "input_0.npy " +
                         valid + "input_1.npy");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(missing.out.empty());
  EXPECT_FALSE(a_line_starts_with(missing.err, "nh")) << missing.err;
  EXPECT_NE(missing.err.find("NotImplementedError: aten::t\\x0anh is not implemented by symbolite"),
            std::string::npos)
      << missing.err;
  auto check = run_cli("check " + hostile("newline_op.ptl"));
  EXPECT_FALSE(a_line_starts_with(check.out, "nh")) << check.out;
  EXPECT_NE(check.out.find(
                "\n  aten::t\\x0anh (used in __torch__.model_defs.Nested.forward, instruction 26"),
            std::string::npos)
      << check.out;
  auto inspect = run_cli("inspect " + hostile("newline_op.ptl"));
  EXPECT_NE(inspect.out.find("(a run fails where it reaches one): aten::t\\x0anh\n"),
            std::string::npos)
      << inspect.out;
}

TEST(OutputSafety, CrashLogsAnswerEachHandleOnceWithItsCount) {
  std::string log;
  for (int i = 0; i < 1000; ++i)
    log += "Debug info for handle(s): debug_handles:{5, 99999999999999999999, 28}\n";
  auto r = run_cli("symbolicate " + fixture_path("models/nested.ptl") + " -", log);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "symbolite: skipped 1000 numbers in debug_handles sets too large for a debug handle\n");
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (auto at = r.out.find(needle); at != std::string::npos; at = r.out.find(needle, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("debug handle "), 2u) << r.out;  // 5 and 28, each once
  EXPECT_EQ(count("(log line 1, mentioned 1000 times)"), 2u) << r.out;
  auto json = run_cli("symbolicate --json " + fixture_path("models/nested.ptl") + " -", log);
  auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][0]["handle"], 5);
  EXPECT_EQ(j["results"][0]["mentions"], 1000);
  EXPECT_EQ(j["results"][1]["handle"], 28);
  // Only numbers too large (the crash_log fuzzer's finding): no handle, said plainly.
  auto none = run_cli("symbolicate " + fixture_path("models/nested.ptl") + " -",
                      "debug_handles:{99999999999999999999}\n");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.err,
            "symbolite: skipped 1 number in debug_handles sets too large for a debug handle\n"
            "symbolite: not found: no debug handles found on stdin: every number in its "
            "debug_handles sets is too large for a debug handle\n");
  EXPECT_TRUE(none.out.empty());
}

}  // namespace
}  // namespace symbolite::cli
