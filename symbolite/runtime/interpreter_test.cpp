// Running real PyTorch 1.13 models (tests/fixtures/run, made by make_run_fixtures.py): valid
// calls give PyTorch's outputs; failing calls raise PyTorch's exception class and message,
// with the module hierarchy and traceback PyTorch printed (up to the documented
// improvements).
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/kernel_runner.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/result_tensors.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::runtime {
namespace {

using symbolite::testing::fixture_path;

std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

const mobile::LoadedModel& model(const std::string& name) {
  static std::map<std::string, mobile::LoadedModel> models;
  auto it = models.find(name);
  if (it == models.end()) {
    it = models.emplace(name, mobile::LoadedModel::load(fixture_path("models/" + name))).first;
  }
  return it->second;
}

nlohmann::json manifest() {
  std::ifstream in(fixture_path("run/manifest.json"));
  return nlohmann::json::parse(in);
}

// Floating outputs: element-wise closeness as numpy.allclose(rtol=1e-4, atol=1e-5) (NaN
// matching NaN); integer and bool outputs: exact.
void expect_close(const tensor::Tensor& got, const tensor::Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  auto g = got.contiguous();
  auto w = want.contiguous();
  if (want.dtype() != tensor::DType::kFloat32 && want.dtype() != tensor::DType::kFloat64) {
    ASSERT_EQ(g.nbytes(), w.nbytes());
    EXPECT_EQ(0, std::memcmp(g.raw_data(), w.raw_data(), g.nbytes())) << what;
    return;
  }
  auto element = [](const tensor::Tensor& t, std::int64_t i) {
    return t.dtype() == tensor::DType::kFloat32 ? static_cast<double>(t.data<float>()[i])
                                                : t.data<double>()[i];
  };
  for (std::int64_t i = 0; i < w.numel(); ++i) {
    double a = element(g, i);
    double b = element(w, i);
    if (std::isnan(a) && std::isnan(b)) continue;
    ASSERT_LE(std::abs(a - b), 1e-5 + 1e-4 * std::abs(b)) << what << " element " << i;
  }
}

class RunFixture : public ::testing::TestWithParam<int> {};

TEST_P(RunFixture, MatchesPyTorch) {
  auto entry = manifest()[static_cast<std::size_t>(GetParam())];
  std::string dir = fixture_path("run/" + entry["dir"].get<std::string>());
  SCOPED_TRACE(entry["model"].get<std::string>() + " " + entry["method"].get<std::string>() +
               entry["call"].get<std::string>());
  std::vector<ops::IValue> inputs;
  for (const auto& name : entry["inputs"]) inputs.push_back(read_input_file(dir + "/" + name.get<std::string>()));
  Interpreter interpreter(model(entry["model"]));
  if (!entry.contains("case")) {
    ops::IValue result = interpreter.run_method(entry["method"].get<std::string>(), inputs);
    std::vector<tensor::Tensor> outputs = result_tensors(result);
    ASSERT_EQ(outputs.size(), entry["outputs"].size());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      expect_close(outputs[i], tensor::read_npy_file(dir + "/" + entry["outputs"][i].get<std::string>()),
                   "output " + std::to_string(i));
    }
    return;
  }
  try {
    interpreter.run_method(entry["method"].get<std::string>(), inputs);
    FAIL() << "expected the call to fail";
  } catch (const RunError& e) {
    const auto& d = e.details();
    EXPECT_EQ(d.python_class, entry["error_type"].get<std::string>());
    EXPECT_EQ(d.message, entry["message"].get<std::string>());
    EXPECT_EQ(d.module_hierarchy, entry["module_hierarchy"].get<std::string>());
    if (entry["lost_source_ranges"].get<int>() == 0) {
      EXPECT_EQ(rstrip(d.traceback), rstrip(entry["traceback"].get<std::string>()));
    }
    ASSERT_TRUE(d.handle.has_value());
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RunFixture, ::testing::Range(0, static_cast<int>(manifest().size())),
                         [](const auto& info) {
                           auto e = manifest()[static_cast<std::size_t>(info.param)];
                           std::string stem = e["model"].get<std::string>();
                           stem = stem.substr(0, stem.find('.'));
                           std::string name = stem + "_" + (e.contains("case") ? e["case"].get<std::string>()
                                                                             : e["dir"].get<std::string>().substr(stem.size() + 1));
                           return name;
                         });

// A failing case whose input must be non-contiguous, which an .npy input file cannot be
// (make_run_fixtures.py skips it): built here, checked against the golden PyTorch wrote.
TEST(Interpreter, ViewOfTransposedInputFailsAsInPyTorch) {
  std::ifstream in(fixture_path("goldens/shape_ops.json"));
  nlohmann::json golden = nlohmann::json::parse(in);
  nlohmann::json expected;
  for (const auto& c : golden["cases"]) {
    if (c["name"] == "view_of_transposed") expected = c;
  }
  ASSERT_FALSE(expected.is_null());
  ops::IValue x = ops::run_op("aten::zeros", {ops::IValue::list({4, 3, 2})});
  ops::IValue xt = ops::run_op("aten::transpose.int", {x, 0, 2});  // randn(4, 3, 2).transpose(0, 2)
  Interpreter interpreter(model("shape_ops.ptl"));
  try {
    interpreter.run_method(expected["method"].get<std::string>(), {xt});
    FAIL() << "expected the call to fail";
  } catch (const RunError& e) {
    const auto& d = e.details();
    EXPECT_EQ(d.python_class, expected["error_type"].get<std::string>());
    EXPECT_EQ(d.message, expected["message"].get<std::string>());
    EXPECT_EQ(d.module_hierarchy, expected["symbolite_module_hierarchy"].get<std::string>());
    EXPECT_EQ(rstrip(d.traceback), rstrip(expected["symbolite_traceback"].get<std::string>()));
  }
}

TEST(Interpreter, StrippedModelNamesHandleAndModelId) {
  auto stripped = mobile::LoadedModel::load(fixture_path("models/nested_stripped.ptl"));
  EXPECT_EQ(stripped.debug, nullptr);
  Interpreter interpreter(stripped);
  std::string dir = fixture_path("run/nested/broadcast_three_deep");
  try {
    interpreter.run_method("forward", {read_input_file(dir + "/input_0.npy"),
                                       read_input_file(dir + "/input_1.npy")});
    FAIL();
  } catch (const RunError& e) {
    EXPECT_EQ(e.details().handle, 28);
    std::string text = e.what();
    EXPECT_NE(text.find("debug handle 28"), std::string::npos) << text;
    EXPECT_NE(text.find("model id " + to_hex(stripped.model_id)), std::string::npos) << text;
    EXPECT_TRUE(e.details().module_hierarchy.empty());
  }
}

TEST(Interpreter, UnknownMethodAndWrongInputCountAreClear) {
  Interpreter interpreter(model("nested.ptl"));
  try {
    interpreter.run_method("nope", {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_NE(std::string(e.what()).find("methods: "), std::string::npos);
  }
  EXPECT_THROW(interpreter.run_method("direct", {ops::IValue(1), ops::IValue(2), ops::IValue(3)}),
               Error);
}

}  // namespace
}  // namespace symbolite::runtime
