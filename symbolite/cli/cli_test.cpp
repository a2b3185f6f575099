// The `symbolite` command end to end: output, JSON schema, exit codes, and clear errors for
// damaged files (tests/fixtures/bad, derived from a real model by make_bad_models.py).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/json_tensor.h"
#include "tests/test_support/run_cli.h"
#include "tests/test_support/scratch_dir.h"
#include "tests/test_support/text.h"

#include <unistd.h>

namespace symbolite::cli {
namespace {

using symbolite::testing::contains;
using symbolite::testing::fixture_path;
using symbolite::testing::load_golden;
using symbolite::testing::nested;
using symbolite::testing::run_cli;

TEST(Cli, InspectPrintsMethodsModulesAndDebugRecords) {
  auto golden = load_golden("nested");
  auto r = run_cli("inspect " + nested());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "bytecode version: 8"));
  for (const auto& m : golden["methods"]) {
    std::string line = m["name"].get<std::string>() + "  " +
                       std::to_string(m["instructions"].get<int>()) + " instructions, " +
                       std::to_string(m["operators"].get<int>()) + " operators";
    EXPECT_TRUE(contains(r.out, line)) << line << "\n" << r.out;
  }
  EXPECT_TRUE(contains(r.out, "callstack_debug_map.pkl:"));
  EXPECT_TRUE(contains(r.out, "(" + golden["top_type"].get<std::string>() + ")"));
}

TEST(Cli, InspectJsonFollowsTheSchema) {
  auto golden = load_golden("nested");
  auto r = run_cli("inspect --json " + nested());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bytecode_version"], 8);
  EXPECT_EQ(j["top_type"], golden["top_type"]);
  ASSERT_EQ(j["methods"].size(), golden["methods"].size());
  EXPECT_EQ(j["methods"][0]["instructions"], golden["methods"][0]["instructions"]);
  EXPECT_EQ(j["debug_info"]["callstack_debug_map"]["handles"], golden["callstack_rows"]);
  EXPECT_TRUE(j["modules"]["children"].is_array());
}

// inspect says which operators symbolite lacks before anyone runs the model; `run` loads such a
// model, runs it where it does not reach them, and fails with the call's traceback where it
// does (missing_op.ptl: torch.fft.rfft on a branch, tests/fixtures/make_missing_op_model.py).
TEST(Cli, InspectListsTheOperatorsSymboliteLacksAndRunFailsOnlyWhereItReachesOne) {
  auto all = run_cli("inspect " + fixture_path("models/nested.ptl") + " --json");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(nlohmann::json::parse(all.out)["missing_operators"], nlohmann::json::array());
  EXPECT_NE(run_cli("inspect " + fixture_path("models/nested.ptl"))
                .out.find("operators: all implemented by symbolite"),
            std::string::npos);

  const std::string model = fixture_path("models/missing_op.ptl");
  auto r = run_cli("inspect " + model + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["missing_operators"],
            nlohmann::json::array({"aten::fft_rfft"}));
  auto text = run_cli("inspect " + model);
  EXPECT_NE(text.out.find("operators: 1 not implemented by symbolite (a run fails where it "
                          "reaches one): aten::fft_rfft\n"),
            std::string::npos)
      << text.out;

  // The branch not taken: PyTorch's output, bit for bit (x * 2 + 1).
  testing::ScratchDir scratch;
  auto ran = run_cli("run " + model + " --input " + fixture_path("run/missing_op/input_0.npy") +
                     " --output-dir " + scratch.path().string());
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const auto got = tensor::read_npy_file(scratch.file("output_0.npy"));
  const auto want = tensor::read_npy_file(fixture_path("run/missing_op/output_0.npy"));
  ASSERT_EQ(got.sizes(), want.sizes());
  for (std::int64_t i = 0; i < want.numel(); ++i) {
    EXPECT_EQ(got.data<float>()[i], want.data<float>()[i]) << i;
  }

  // The branch taken: the exception at the call, with the model's own source line.
  auto failed = run_cli("run " + model + " --input " + fixture_path("run/missing_op/reaching.npy"));
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_NE(failed.err.find("NotImplementedError: aten::fft_rfft is not implemented by symbolite"),
            std::string::npos)
      << failed.err;
  EXPECT_NE(failed.err.find("return torch.fft.rfft(x).abs()"), std::string::npos) << failed.err;
}

// `operators` lists the registry with PyTorch's schema text, and agrees with `inspect`: every
// operator nested.ptl's bytecode names is listed, missing_op.ptl's fft_rfft is not.
TEST(Cli, OperatorsListsTheRegistryAndAgreesWithInspect) {
  auto r = run_cli("operators --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto listing = nlohmann::json::parse(r.out);
  EXPECT_EQ(listing.at("schema_version"), 1);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& op : listing.at("operators")) by_name[op.at("name")] = op;
  EXPECT_EQ(listing.at("count"), by_name.size());
  EXPECT_EQ(by_name.size(), ops::default_registry().size());
  ASSERT_TRUE(by_name.contains("aten::add.Tensor"));
  EXPECT_EQ(by_name["aten::add.Tensor"].at("schema"),
            "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(by_name["aten::add.Tensor"].at("arguments"), 3);
  EXPECT_EQ(by_name["aten::add.Tensor"].at("defaults"), 1);
  EXPECT_FALSE(by_name.contains("aten::fft_rfft"));

  auto inspected = run_cli("inspect " + fixture_path("models/nested.ptl") + " --json");
  ASSERT_EQ(inspected.exit_code, 0) << inspected.err;
  const auto model = nlohmann::json::parse(inspected.out);
  std::size_t names = 0;
  for (const auto& method : model.at("methods")) {
    EXPECT_EQ(method.at("operator_names").size(), method.at("operators").get<std::size_t>());
    for (const auto& name : method.at("operator_names")) {
      EXPECT_TRUE(by_name.contains(name.get<std::string>())) << name;
      ++names;
    }
  }
  EXPECT_GT(names, 0u);

  auto text = run_cli("operators");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\naten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> "
                          "Tensor\n"),
            std::string::npos);
  EXPECT_TRUE(text.out.ends_with(fmt::format("\n{} operators\n", by_name.size())));
}

TEST(Cli, SymbolicatePrintsPyTorchsLayoutWithTheRealMethodName) {
  auto c = load_golden("nested")["cases"][0];
  auto r = run_cli("symbolicate " + nested() + " " + std::to_string(c["handle"].get<int>()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string hierarchy = c["module_hierarchy"];
  hierarchy.replace(hierarchy.find("::<unknown>"), 11, "::" + c["top_function"].get<std::string>());
  EXPECT_TRUE(contains(r.out, "Module hierarchy:" + hierarchy + "\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "Traceback of TorchScript (most recent call last):\n"));
  EXPECT_FALSE(contains(r.out, "<unknown>"));
}

TEST(Cli, SymbolicateReadsPyTorchsCrashLogFromStdin) {
  auto c = load_golden("nested")["cases"][0];
  // The stripped model's error is exactly what a field crash report holds.
  auto r = run_cli("symbolicate --json " + nested() + " -", c["stripped_error"].get<std::string>());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["handle"], c["handle"]);
  EXPECT_EQ(j["results"][0]["status"], "ok");
  EXPECT_EQ(j["results"][0]["log_line"].get<int>() >= 1, true);
  EXPECT_FALSE(j["results"][0]["frames"].empty());
}

TEST(Cli, MissingHandleExitsOneAndExplains) {
  auto r = run_cli("symbolicate " + nested() + " 424242");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.out, "debug handle 424242: not found"));
  EXPECT_TRUE(contains(r.out, "not in the debug table"));
  EXPECT_TRUE(contains(r.err, "not found"));
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_cli("").exit_code, 2);
  EXPECT_EQ(run_cli("frobnicate x").exit_code, 2);
  EXPECT_EQ(run_cli("symbolicate " + nested()).exit_code, 2);
  auto r = run_cli("symbolicate " + nested() + " twelve");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "'twelve' is not a debug handle"));
}

TEST(Cli, StdinWithoutHandlesIsAClearError) {
  auto r = run_cli("symbolicate " + nested() + " -", "all good here\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "no debug handles found on stdin"));
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, SplitThenSymbolicateFromTheSidecarAlone) {
  std::string dir = ::testing::TempDir() + "cli_split_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  auto r = run_cli("split " + nested() + " --out " + dir + "/s.ptl --debug " + dir + "/s.symdbg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "model id: "));
  auto c = load_golden("nested")["cases"][0];
  // From the sidecar alone, fed the crash text PyTorch printed for the stripped model.
  auto alone = run_cli("symbolicate --json --debug " + dir + "/s.symdbg -",
                       c["stripped_error"].get<std::string>());
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  auto j = nlohmann::json::parse(alone.out);
  EXPECT_EQ(j["results"][0]["handle"], c["handle"]);
  EXPECT_EQ(j["results"][0]["status"], "ok");
  EXPECT_EQ(j["model_id"].get<std::string>().size(), 32u);
  // With the stripped model: its id matches. With another model: refused.
  EXPECT_EQ(run_cli("symbolicate --debug " + dir + "/s.symdbg " + dir + "/s.ptl 1").exit_code, 0);
  auto wrong = run_cli("symbolicate --debug " + dir + "/s.symdbg " +
                       fixture_path("models/tag_minus_one.ptl") + " 1");
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_TRUE(contains(wrong.err, "belongs to model")) << wrong.err;
  EXPECT_TRUE(wrong.out.empty());
  // A corrupt sidecar is one clear error.
  auto corrupt = run_cli("symbolicate --debug " + nested() + " 1");
  EXPECT_EQ(corrupt.exit_code, 1);
  EXPECT_TRUE(contains(corrupt.err, "not a symbolite sidecar")) << corrupt.err;
  std::filesystem::remove_all(dir);
}

struct BadModel {
  const char* file;
  std::vector<std::string> expected;  // substrings of the one-line error
};

class CliBadModel : public ::testing::TestWithParam<BadModel> {};

TEST_P(CliBadModel, OneClearErrorNoOutput) {
  const auto& bad = GetParam();
  std::string path = fixture_path(std::string("bad/") + bad.file);
  for (const char* command : {"inspect ", "symbolicate "}) {
    auto r = run_cli(command + path + (std::string(command) == "symbolicate " ? " 1" : ""));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(contains(r.err, path)) << r.err;
    for (const auto& s : bad.expected)
      EXPECT_TRUE(contains(r.err, s)) << r.err << "\nmissing: " << s;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, CliBadModel,
    ::testing::Values(BadModel{"not_a_zip.ptl", {"format error"}},
                      BadModel{"truncated.ptl", {"format error"}},
                      BadModel{"crc_mismatch.ptl", {"data.pkl'", "CRC"}},
                      BadModel{"truncated_pickle.ptl", {"bytecode.pkl'", "byte "}},
                      BadModel{"evil_global.ptl",
                               {"callstack_debug_map.pkl'", "byte ", "os.system", "not allowed"}},
                      BadModel{"wrong_row_shape.ptl",
                               {"callstack_debug_map.pkl'", "row 1", "4 elements"}},
                      BadModel{"no_data_pkl.ptl", {"data.pkl", "not found"}}),
    [](const auto& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('.'));
    });

// Bytecode that passes an operator more values than it pushed (make_bad_models.py: OP
// aten::new_zeros after one push, OPN aten::percentFormat 5 after two) fails at that
// instruction with the model's traceback, before the kernel reads below the stack (ASan
// caught new_zeros's read before the interpreter checked).
TEST(Cli, BytecodeShortOfAnOperatorsArgumentsFailsAtTheOperator) {
  const std::string x = fixture_path("run/nested/valid_0/input_0.npy");
  const std::pair<const char*, const char*> cases[] = {
      {"stack_underflow.ptl", "passes aten::new_zeros 2 arguments, the stack holds 1 value\n"},
      {"opn_count_beyond_stack.ptl",
       "passes aten::percentFormat 5 arguments, the stack holds 2 values\n"}};
  for (const auto& [file, words] : cases) {
    auto r = run_cli("run " + fixture_path(std::string("bad/") + file) +
                     " --method direct --input " + x + " --input " + x);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(
        contains(r.err, std::string("RuntimeError: stack underflow: the bytecode ") + words))
        << r.err;
    EXPECT_TRUE(contains(r.err, "Module hierarchy:top(Nested)::direct.aten::mm")) << r.err;
    EXPECT_TRUE(contains(r.err, "return torch.mm(x, y)")) << r.err;
  }
}

// The to_backend fixture (tests/fixtures/models/delegated.ptl, made by
// make_delegated_models.py): lowered modules in inspect, `symbolicate I:B`.
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
  const auto golden = load_golden("delegated");  // kept alive: the loop iterates into it
  for (const auto& c : golden["cases"]) {
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

// A model that asks for more memory than the machine has (memory_bomb.ptl, made by
// tests/fixtures/make_memory_bomb_model.py) fails as a model error at the operator that asked,
// with its traceback: a 480 GB upsampled output, and a list of 2^40 ints (16 TiB, a std::vector
// inside the kernel). mimalloc, the command's allocator, would have handed out the memory
// unreserved and the process been killed writing it.
TEST(Cli, RequestsBeyondTheMachinesMemoryFailAtTheOperator) {
  testing::ScratchDir scratch;
  const std::string x = scratch.file("x.npy");
  tensor::write_npy_file(x, tensor::Tensor::empty({1, 3, 4, 4}, tensor::DType::kFloat32));
  auto int_file = [&](const std::string& name, std::int64_t v) {
    std::ofstream(scratch.file(name)) << v;
    return scratch.file(name);
  };
  const std::string model = fixture_path("models/memory_bomb.ptl");
  const std::string run = "run " + model + " --input " + x + " ";
  auto fine = run_cli(run + int_file("size.json", 8) + " " + int_file("n.json", 3));
  ASSERT_EQ(fine.exit_code, 0) << fine.err;

  auto upsample = run_cli(run + int_file("huge_size.json", 200000) + " " + scratch.file("n.json"));
  EXPECT_EQ(upsample.exit_code, 1);
  EXPECT_TRUE(contains(upsample.err,
                       "RuntimeError: can't allocate memory: you tried to allocate 480000000000 "
                       "bytes for a Float tensor of sizes [1, 3, 200000, 200000]"))
      << upsample.err;
  EXPECT_TRUE(contains(upsample.err, "aten::upsample_bilinear2d")) << upsample.err;

  auto list = run_cli(run + scratch.file("size.json") + " " +
                      int_file("huge_n.json", std::int64_t{1} << 40));
  EXPECT_EQ(list.exit_code, 1);
  EXPECT_TRUE(contains(list.err,
                       "RuntimeError: can't allocate memory for the operator's working "
                       "data"))
      << list.err;
  EXPECT_TRUE(contains(list.err, "items: List[int] = [0] * n")) << list.err;
  EXPECT_TRUE(fine.out.size() > 0 && upsample.out.empty() && list.out.empty());
}

TEST(Cli, NoFusionRunsTheOperatorsAsWrittenWithTheSameResult) {
  // fused.ptl folds batch norms and fuses activations (runtime/fused_run_test.cpp).
  testing::ScratchDir scratch;
  std::ifstream golden(fixture_path("goldens/fused.json"));
  const auto calls = nlohmann::json::parse(golden)["calls"];
  ASSERT_EQ(calls[0]["model"], "fused");
  const std::string input = scratch.file("x.npy");
  tensor::write_npy_file(input, testing::tensor_from_json(calls[0]["inputs"][0]));
  const std::string model = fixture_path("models/fused.ptl");
  auto fused = run_cli("run " + model + " --input " + input + " --output-dir " + scratch.file("a"));
  auto unfused = run_cli("run " + model + " --input " + input + " --no-fusion --output-dir " +
                         scratch.file("b"));
  ASSERT_EQ(fused.exit_code, 0) << fused.err;
  ASSERT_EQ(unfused.exit_code, 0) << unfused.err;
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(scratch.file("a/output_0.npy")), bytes(scratch.file("b/output_0.npy")));
  auto bench =
      run_cli("bench " + model + " --input " + input + " --no-fusion --runs 1 --warmup 0 --json");
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_EQ(nlohmann::json::parse(bench.out)["runs"], 1);
}

TEST(Cli, ProfileAsRunTimesTheFusedOperatorsBenchRuns) {
  testing::ScratchDir scratch;
  std::ifstream golden(fixture_path("goldens/fused.json"));
  const auto calls = nlohmann::json::parse(golden)["calls"];
  const std::string input = scratch.file("x.npy");
  tensor::write_npy_file(input, testing::tensor_from_json(calls[0]["inputs"][0]));
  const std::string model = fixture_path("models/fused.ptl") + " --input " + input;
  auto rows = [](const std::string& json) {
    std::map<std::string, int> counts;
    const auto parsed = nlohmann::json::parse(json);
    for (const auto& row : parsed["operators"]) {
      counts[row["op"].get<std::string>()] = row["count"].get<int>();
    }
    return counts;
  };
  auto as_run = run_cli("profile " + model + " --runs 2 --as-run --json");
  auto plain = run_cli("profile " + model + " --runs 2 --json");
  ASSERT_EQ(as_run.exit_code, 0) << as_run.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  // fused_defs.py's Fused: the input's batch norm with its relu_, six Conv-BN-activation
  // blocks (one relu not in place), one Conv-BN pair; the file's code has the eight batch
  // norms on their own.
  const auto fused_rows = rows(as_run.out), file_rows = rows(plain.out);
  EXPECT_EQ(fused_rows.at("aten::batch_norm+aten::relu_"), 2);
  EXPECT_EQ(fused_rows.at("aten::conv2d+aten::batch_norm+aten::hardswish_"), 2);
  EXPECT_EQ(fused_rows.at("aten::conv2d+aten::batch_norm+aten::relu"), 2);
  EXPECT_EQ(fused_rows.at("aten::conv2d+aten::batch_norm"), 2);
  EXPECT_EQ(fused_rows.count("aten::batch_norm"), 0U);
  EXPECT_EQ(file_rows.at("aten::batch_norm"), 16);
  EXPECT_EQ(file_rows.count("aten::conv2d+aten::batch_norm"), 0U);
  // bench's interpreter cost is measured on the same code: as many operators a run.
  auto bench = run_cli("bench " + model + " --runs 2 --warmup 0 --json");
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  int events = 0;
  for (const auto& [op, count] : fused_rows) events += count;
  EXPECT_EQ(nlohmann::json::parse(bench.out)["operators_per_run"], events / 2);
}

}  // namespace
}  // namespace symbolite::cli
