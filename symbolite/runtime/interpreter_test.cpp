// Running real PyTorch 1.13 models (tests/fixtures/run, made by make_run_fixtures.py): valid
// calls give PyTorch's outputs; failing calls raise PyTorch's exception class and message,
// with the module hierarchy and traceback PyTorch printed (up to the documented
// improvements).
#include <cmath>
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/result_tensors.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/loaded_fixture.h"
#include "tests/test_support/run_manifest.h"
#include "tests/test_support/text.h"

namespace symbolite::runtime {
namespace {

using symbolite::testing::fixture_path;
using symbolite::testing::loaded_fixture;
using symbolite::testing::rstrip;

class RunFixture : public ::testing::TestWithParam<int> {};

TEST_P(RunFixture, MatchesPyTorch) {
  const auto& entry = testing::run_manifest()[static_cast<std::size_t>(GetParam())];
  testing::check_run_entry(entry, loaded_fixture(entry["model"].get<std::string>()));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RunFixture,
                         ::testing::Range(0, static_cast<int>(testing::run_manifest().size())),
                         [](const auto& info) { return testing::run_case_name(info.param); });

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
  Interpreter interpreter(loaded_fixture("shape_ops.ptl"));
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
    interpreter.run_method(
        "forward", {read_input_file(dir + "/input_0.npy"), read_input_file(dir + "/input_1.npy")});
    FAIL();
  } catch (const RunError& e) {
    EXPECT_EQ(e.details().handle, 28);
    std::string text = e.what();
    EXPECT_NE(text.find("debug handle 28"), std::string::npos) << text;
    EXPECT_NE(text.find("model id " + to_hex(stripped.model_id())), std::string::npos) << text;
    EXPECT_TRUE(e.details().module_hierarchy.empty());
  }
}

TEST(Interpreter, UnknownMethodAndWrongInputCountAreClear) {
  Interpreter interpreter(loaded_fixture("nested.ptl"));
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
