// `symbolite run` with values as files (runtime/input_files.h) on containers.ptl, whose
// methods take and return dicts, tuples, lists, optionals, strings and floats: every call
// PyTorch 1.13 made (tests/fixtures/make_container_model.py) is made again from the same
// files, and result.json must equal PyTorch's — same structure, same key order, same scalars,
// tensors equal — or the failure must be PyTorch's class and message.
#include <cmath>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/nn_cases.h"
#include "tests/test_support/run_cli.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::cli {
namespace {

using nlohmann::ordered_json;
using symbolite::testing::fixture_path;

ordered_json read_json(const std::string& path) {
  std::ifstream in(path);
  return ordered_json::parse(in);
}

// Compares `got` (under `got_dir`) with PyTorch's `want` (under `want_dir`); `where` names
// the place for failure messages.
void expect_same(const ordered_json& got, const std::string& got_dir, const ordered_json& want,
                 const std::string& want_dir, const std::string& where) {
  SCOPED_TRACE(where);
  ASSERT_EQ(got.type(), want.type()) << got.dump() << " vs " << want.dump();
  if (want.is_object() && want.size() == 1 && want.contains("$tensor")) {
    ASSERT_TRUE(got.contains("$tensor")) << got.dump();
    auto g = tensor::read_npy_file(got_dir + "/" + got["$tensor"].get<std::string>()).contiguous();
    auto w =
        tensor::read_npy_file(want_dir + "/" + want["$tensor"].get<std::string>()).contiguous();
    ASSERT_EQ(g.sizes(), w.sizes());
    ASSERT_EQ(g.dtype(), w.dtype());
    for (std::int64_t i = 0; i < w.numel(); ++i)
      EXPECT_NEAR(testing::nn_element(g, i), testing::nn_element(w, i), 1e-5) << i;
    return;
  }
  if (want.is_object()) {
    ASSERT_EQ(got.size(), want.size()) << got.dump();
    auto g = got.begin();
    for (auto w = want.begin(); w != want.end(); ++w, ++g) {
      EXPECT_EQ(g.key(), w.key());  // the order too
      expect_same(g.value(), got_dir, w.value(), want_dir, where + "[\"" + w.key() + "\"]");
    }
  } else if (want.is_array()) {
    ASSERT_EQ(got.size(), want.size()) << got.dump();
    for (std::size_t i = 0; i < want.size(); ++i) {
      expect_same(got[i], got_dir, want[i], want_dir, where + "[" + std::to_string(i) + "]");
    }
  } else if (want.is_number_float()) {
    EXPECT_NEAR(got.get<double>(), want.get<double>(), 1e-9);
  } else {
    EXPECT_EQ(got, want);
  }
}

TEST(RunValues, EveryContainerCallGivesPyTorchsResult) {
  const std::string root = fixture_path("run/containers");
  const auto calls = read_json(root + "/calls.json");
  ASSERT_GE(calls.size(), 10u);
  int errors = 0;
  for (const auto& call : calls) {
    SCOPED_TRACE(call["call"].get<std::string>());
    testing::ScratchDir scratch;
    const std::string dir = root + "/" + call["dir"].get<std::string>();
    std::string args = "run " + fixture_path("models/containers.ptl") + " --method " +
                       call["method"].get<std::string>() + " --output-dir " + scratch.file("out") +
                       " --input";
    for (const auto& input : call["inputs"]) args += " " + dir + "/" + input.get<std::string>();
    auto r = testing::run_cli(args);
    if (call.contains("error_type")) {
      ++errors;
      EXPECT_EQ(r.exit_code, 1);
      EXPECT_NE(r.err.find(call["error_type"].get<std::string>() + ": " +
                           call["message"].get<std::string>() + "\n"),
                std::string::npos)
          << r.err;
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_same(read_json(scratch.file("out/result.json")), scratch.file("out"),
                read_json(dir + "/result.json"), dir, "result");
  }
  EXPECT_GE(errors, 1);
}

// The result can be given back as an input: forward's dict result, fed to take(d, "total").
TEST(RunValues, AResultIsAnInput) {
  testing::ScratchDir scratch;
  const std::string model = fixture_path("models/containers.ptl");
  const std::string first = fixture_path("run/containers/call_0/input_0.json");
  auto a =
      testing::run_cli("run " + model + " --input " + first + " --output-dir " + scratch.file("a"));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(
      a.out.find(
          "result: {\"b\":{\"$tensor\":\"output_0.npy\"},\"a\":{\"$tensor\":\"output_1.npy\"},"
          "\"total\":{\"$tensor\":\"output_2.npy\"}}"),
      std::string::npos)
      << a.out;
  std::ofstream(scratch.file("key.json")) << "\"total\"";
  auto b =
      testing::run_cli("run " + model + " --method take --input " + scratch.file("a/result.json") +
                       " " + scratch.file("key.json") + " --output-dir " + scratch.file("b"));
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto total = tensor::read_npy_file(scratch.file("a/output_2.npy"));
  auto taken = tensor::read_npy_file(scratch.file("b/output_0.npy"));
  ASSERT_EQ(taken.sizes(), total.sizes());
  for (std::int64_t i = 0; i < total.numel(); ++i)
    EXPECT_EQ(taken.data<float>()[i], total.data<float>()[i]);
}

}  // namespace
}  // namespace symbolite::cli
