// `symbolite lower` and `symbolite explain` end to end: the lowered file runs with PyTorch's
// outputs, its report accounts for every delegate node, `explain` shows a compile failure at
// its source, and mistakes get clear errors.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_cli.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::cli {
namespace {

using symbolite::testing::fixture_path;
using symbolite::testing::nested;
using symbolite::testing::run_cli;
using symbolite::testing::ScratchDir;

std::string nested_inputs() {
  std::string dir = fixture_path("run/nested/valid_0/");
  return dir + "input_0.npy " + dir + "input_1.npy";
}

TEST(LowerCommand, WritesAFileThatRunsAndAReportOfEveryDelegateNode) {
  ScratchDir dir;
  for (const char* backend : {"eager", "xnnpack"}) {
    SCOPED_TRACE(backend);
    std::string out = dir.file(std::string(backend) + ".ptl");
    auto r = run_cli("lower " + nested() + " --backend " + backend + " -o " + out + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto report = nlohmann::json::parse(r.out);
    std::set<std::int64_t> handles;
    for (const auto& p : report["partitions"]) {
      for (const auto& n : p["delegate_nodes"])
        handles.insert(n["debug_handle"].get<std::int64_t>());
    }
    EXPECT_FALSE(handles.empty());
    // Each handle symbolicates in the lowered file.
    std::string list;
    for (auto h : handles) list += " " + std::to_string(h);
    auto s = run_cli("symbolicate " + out + list + " --json");
    ASSERT_EQ(s.exit_code, 0) << s.err;
    EXPECT_EQ(nlohmann::json::parse(s.out)["results"].size(), handles.size());
    ScratchDir outputs;
    auto run = run_cli("run " + out + " --input " + nested_inputs() + " --output-dir " +
                       outputs.path().string() + " --json");
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
}

TEST(LowerCommand, MistakesAreUsageErrors) {
  ScratchDir dir;
  auto unknown = run_cli("lower " + nested() + " --backend tpu -o " + dir.file("x.ptl"));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown backend 'tpu' (backends: "), std::string::npos)
      << unknown.err;
  EXPECT_NE(unknown.err.find("xnnpack"), std::string::npos) << unknown.err;
  auto module =
      run_cli("lower " + nested() + " --backend eager --module no_such -o " + dir.file("x.ptl"));
  EXPECT_EQ(module.exit_code, 2);
  EXPECT_NE(module.err.find(
                "no node of __torch__.model_defs.Nested.forward comes from a module 'no_such'"),
            std::string::npos)
      << module.err;
  auto both = run_cli("lower " + nested() + " --backend eager --auto --module level1 -o " +
                      dir.file("x.ptl"));
  EXPECT_EQ(both.exit_code, 2);
  auto stdout_output = run_cli("lower " + nested() + " --backend eager -o -");
  EXPECT_EQ(stdout_output.exit_code, 2);
}

TEST(LowerCommand, ModuleOptionLowersOnlyThatModulesNodes) {
  ScratchDir dir;
  auto r = run_cli("lower " + nested() + " --backend eager --module level1.level2 -o " +
                   dir.file("m.ptl") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto report = nlohmann::json::parse(r.out);
  ASSERT_FALSE(report["partitions"].empty());
  for (const auto& p : report["partitions"]) {
    for (const auto& n : p["delegate_nodes"]) {
      EXPECT_NE(n["module_hierarchy"].get<std::string>().find(".level2(Level2)::"),
                std::string::npos)
          << n["module_hierarchy"];
    }
  }
}

TEST(ExplainCommand, ShowsTheCompileFailureAtTheRelu) {
  auto r = run_cli("explain " + nested() + " --backend relu_compile_error --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto report = nlohmann::json::parse(r.out);
  int failed = 0;
  for (const auto& p : report["partitions"]) {
    bool has_relu = false;
    for (const auto& op : p["operators"]) has_relu = has_relu || op == "aten::relu";
    EXPECT_EQ(!p["compile_error"].is_null(), has_relu) << p.dump();
    if (has_relu) {
      ++failed;
      EXPECT_TRUE(p["compile_error_module_hierarchy"].get<std::string>().ends_with("aten::relu"));
      EXPECT_EQ(p["compile_error_module_hierarchy"].get<std::string>().find("<unknown>"),
                std::string::npos);
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_GT(report["operators_delegated"].get<int>(), 0);

  auto text = run_cli("explain " + fixture_path("models/lstm.ptl") + " --backend xnnpack");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("breaks ("), std::string::npos);
  EXPECT_NE(text.out.find("aten::lstm"), std::string::npos) << text.out;
}

// With inputs, explain counts the FLOPs the lowered model runs: in all, the profiler's count
// for the unlowered model on the same inputs; inside delegates, the partitions' sum — every
// FLOP of nested.ptl's forward (linear, mul, add) is an XNNPACK operator's.
TEST(ExplainCommand, CountsTheFlopsDelegated) {
  auto r = run_cli("explain " + nested() + " --backend xnnpack --json --input " + nested_inputs());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto report = nlohmann::json::parse(r.out);
  auto profile = run_cli("profile " + nested() + " --flops --json --input " + nested_inputs());
  ASSERT_EQ(profile.exit_code, 0) << profile.err;
  const auto total = nlohmann::json::parse(profile.out)["modules"]["flops"].get<std::int64_t>();
  ASSERT_GT(total, 0);
  EXPECT_EQ(report["flops"]["total"].get<std::int64_t>(), total);
  std::int64_t sum = 0;
  for (const auto& p : report["partitions"]) sum += p["flops"].get<std::int64_t>();
  EXPECT_EQ(report["flops"]["delegated"].get<std::int64_t>(), sum);
  EXPECT_EQ(sum, total);
  EXPECT_EQ(report["flops"]["delegated_percent"].get<double>(), 100.0);

  // Without inputs there is nothing to count; with a partition that does not compile, no run.
  auto plain =
      nlohmann::json::parse(run_cli("explain " + nested() + " --backend xnnpack --json").out);
  EXPECT_TRUE(plain["flops"].is_null());
  auto broken = run_cli("explain " + nested() + " --backend relu_compile_error --json --input " +
                        nested_inputs());
  ASSERT_EQ(broken.exit_code, 0) << broken.err;
  EXPECT_EQ(nlohmann::json::parse(broken.out)["flops"]["error"], "a partition does not compile");
}

// eager_noexcept reports a failure inside a partition as the partition's: the traceback stops
// at the lowered call, and the message keeps the node's delegate handle and PyTorch's error.
// The handle symbolicates to the node eager would have named.
TEST(LowerCommand, EagerNoexceptReportsThePartitionsFailure) {
  ScratchDir dir;
  const std::string input = fixture_path("run/nested/broadcast_three_deep/");
  const std::string inputs = input + "input_0.npy " + input + "input_1.npy";
  ASSERT_EQ(
      run_cli("lower " + nested() + " --backend eager_noexcept -o " + dir.file("noexcept.ptl"))
          .exit_code,
      0);
  ASSERT_EQ(run_cli("lower " + nested() + " --backend eager -o " + dir.file("eager.ptl")).exit_code,
            0);
  auto noexcept_run = run_cli("run " + dir.file("noexcept.ptl") + " --input " + inputs);
  auto eager_run = run_cli("run " + dir.file("eager.ptl") + " --input " + inputs);
  ASSERT_EQ(noexcept_run.exit_code, 1) << noexcept_run.err;
  ASSERT_EQ(eager_run.exit_code, 1) << eager_run.err;
  const std::string message =
      "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0";
  EXPECT_NE(eager_run.err.find("RuntimeError: " + message), std::string::npos) << eager_run.err;
  const std::string prefix =
      "RuntimeError: eager_noexcept: the partition failed at its node with delegate handle ";
  auto at = noexcept_run.err.find(prefix);
  ASSERT_NE(at, std::string::npos) << noexcept_run.err;
  const std::string handle = noexcept_run.err.substr(
      at + prefix.size(), noexcept_run.err.find(':', at + prefix.size()) - at - prefix.size());
  EXPECT_NE(noexcept_run.err.find(": RuntimeError: " + message), std::string::npos)
      << noexcept_run.err;
  // The partition's call, not the node: the hierarchy ends at the lowered module's execute.
  EXPECT_NE(
      noexcept_run.err.find(
          "Module hierarchy:top(Nested)::forward.__lowered_2(Nested)::forward.prim::CallMethod\n"),
      std::string::npos)
      << noexcept_run.err;
  EXPECT_EQ(noexcept_run.err.find("aten::add"), std::string::npos) << noexcept_run.err;
  // The node, by its handle: where eager's traceback ends.
  auto node = run_cli("symbolicate " + dir.file("noexcept.ptl") + " " + handle + " --json");
  ASSERT_EQ(node.exit_code, 0) << node.err;
  auto hierarchy =
      nlohmann::json::parse(node.out)["results"][0]["module_hierarchy"].get<std::string>();
  EXPECT_TRUE(hierarchy.ends_with("aten::add")) << hierarchy;
  EXPECT_NE(eager_run.err.find("Module hierarchy:" + hierarchy + "\n"), std::string::npos)
      << eager_run.err;
}

TEST(MinifyCommand, NamesTheFirstReluForEachInjectedFault) {
  // nested.ptl's first ReLU reached: torch.relu in Level1.forward.
  for (const char* backend : {"relu_compile_error", "relu_runtime_error", "relu_accuracy_error"}) {
    SCOPED_TRACE(backend);
    ScratchDir dir;
    auto r = run_cli("minify " + nested() + " --backend " + backend + " --input " +
                     nested_inputs() + " -o " + dir.file("out") + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto report = nlohmann::json::parse(r.out);
    ASSERT_FALSE(report["failure"].is_null());
    ASSERT_EQ(report["culprits"].size(), 1u) << r.out;
    const auto& culprit = report["culprits"][0];
    EXPECT_EQ(culprit["node"], "aten::relu");
    EXPECT_EQ(culprit["module_hierarchy"],
              "top(Nested)::forward.level1(Level1)::forward.aten::relu");
    EXPECT_TRUE(culprit["source"].get<std::string>().starts_with("tests/fixtures/model_defs.py:"))
        << culprit;
    EXPECT_LE(report["tests"].get<int>(), 10);
    EXPECT_TRUE(std::filesystem::exists(dir.file("out/reproducer.ptl")));
    // The graph step: the ReLU alone, on the tensor it received, still fails the same way.
    const auto& graph = report["graph"];
    EXPECT_TRUE(graph["reduced"].get<bool>()) << graph;
    EXPECT_LT(graph["nodes_after"].get<int>(), graph["nodes_before"].get<int>());
    EXPECT_TRUE(std::filesystem::exists(dir.file("out/isolated.ptl")));
    EXPECT_TRUE(std::filesystem::exists(dir.file("out/input_0.npy")));
    EXPECT_FALSE(std::filesystem::exists(dir.file("out/input_1.npy")));
    if (std::string(backend) == "relu_accuracy_error") {
      // Unlowered, the isolated model computes relu(x); lowered, the injected x + 1.
      ASSERT_EQ(run_cli("run " + dir.file("out/isolated.ptl") + " --input " +
                        dir.file("out/input_0.npy") + " --output-dir " + dir.file("plain"))
                    .exit_code,
                0);
      ASSERT_EQ(run_cli("run " + dir.file("out/reproducer.ptl") + " --input " +
                        dir.file("out/input_0.npy") + " --output-dir " + dir.file("wrong"))
                    .exit_code,
                0);
      auto x = tensor::read_npy_file(dir.file("out/input_0.npy")).contiguous();
      auto plain = tensor::read_npy_file(dir.file("plain/output_0.npy")).contiguous();
      auto wrong = tensor::read_npy_file(dir.file("wrong/output_0.npy")).contiguous();
      ASSERT_EQ(plain.sizes(), x.sizes());
      ASSERT_EQ(wrong.sizes(), x.sizes());
      for (std::int64_t i = 0; i < x.numel(); ++i) {
        EXPECT_EQ(plain.data<float>()[i], std::max(0.0f, x.data<float>()[i]));
        EXPECT_EQ(wrong.data<float>()[i], x.data<float>()[i] + 1.0f);
      }
    }
    if (std::string(backend) == "relu_runtime_error") {
      // The reproducer shows the failure, at the ReLU.
      auto again =
          run_cli(report["command"].get<std::string>().substr(std::string("symbolite ").size()));
      EXPECT_EQ(again.exit_code, 1);
      EXPECT_NE(again.err.find("level1(Level1)::forward.aten::relu"), std::string::npos)
          << again.err;
    }
  }
  ScratchDir dir;
  auto fine = run_cli("minify " + nested() + " --backend eager --input " + nested_inputs() +
                      " -o " + dir.file("out") + " --json");
  ASSERT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_TRUE(nlohmann::json::parse(fine.out)["failure"].is_null());
}

}  // namespace
}  // namespace symbolite::cli
