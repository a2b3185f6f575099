// Running files lowered with PyTorch's to_backend (tests/fixtures/models/delegated*.ptl, made
// by make_delegated_models.py with libsymbolite_torch.so): the outputs PyTorch computed, and a
// failure inside the delegate reported as PyTorch reports it — the delegate node's message,
// the composed module hierarchy and the traceback through the lowered module — except that
// symbolite names the top function where PyTorch prints `<unknown>` (README).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "symbolite/mobile/delegate_program.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/delegate/delegate_backend.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/text.h"

namespace symbolite::runtime {
namespace {

using symbolite::testing::fixture_path;
using symbolite::testing::rstrip;

nlohmann::json golden(const std::string& name) {
  std::ifstream in(fixture_path("goldens/" + name + ".json"));
  return nlohmann::json::parse(in);
}

std::vector<ops::IValue> inputs_of(const nlohmann::json& values) {
  std::vector<ops::IValue> inputs;
  for (const auto& v : values) {
    auto t =
        tensor::Tensor::empty(v["shape"].get<std::vector<std::int64_t>>(), tensor::DType::kFloat32);
    float* data = t.mutable_data<float>();
    for (std::size_t i = 0; i < v["data"].size(); ++i) data[i] = v["data"][i].get<float>();
    inputs.emplace_back(std::move(t));
  }
  return inputs;
}

// PyTorch names the function of a delegate's outer frames `<unknown>`; symbolite names them.
std::string named(std::string text) {
  for (auto at = text.find("<unknown>"); at != std::string::npos; at = text.find("<unknown>")) {
    text.replace(at, 9, "forward");
  }
  return text;
}

class DelegatedRun : public ::testing::TestWithParam<std::string> {};

TEST_P(DelegatedRun, ValidInputsGivePyTorchsOutput) {
  const auto g = golden(GetParam());
  auto model = mobile::LoadedModel::load(fixture_path("models/" + g["model"].get<std::string>()));
  Interpreter interpreter(model);
  auto out = interpreter.run_method("forward", inputs_of(g["valid"]["input_values"]));
  const auto& t = out.to_tensor();
  const auto& expected = g["valid"]["output"];
  ASSERT_EQ(t.numel(), 9);
  for (std::int64_t i = 0; i < 3; ++i) {
    for (std::int64_t j = 0; j < 3; ++j) {
      EXPECT_NEAR(t.data<float>()[i * 3 + j], expected[i][j].get<double>(), 1e-5);
    }
  }
}

TEST_P(DelegatedRun, FailureInsideTheDelegateNamesTheDelegateNode) {
  const auto g = golden(GetParam());
  auto model = mobile::LoadedModel::load(fixture_path("models/" + g["model"].get<std::string>()));
  Interpreter interpreter(model);
  for (const auto& c : g["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    try {
      interpreter.run_method("forward", inputs_of(c["input_values"]));
      ADD_FAILURE() << "no error";
    } catch (const RunError& e) {
      const auto& d = e.details();
      EXPECT_EQ(d.python_class, c["error_type"]);
      ASSERT_TRUE(d.delegate_handle.has_value());
      EXPECT_EQ(*d.delegate_handle, c["backend_handle"].get<std::int64_t>());
      if (g["debug_info"].get<bool>()) {
        EXPECT_EQ(d.message, c["message"]);
        EXPECT_EQ(*d.handle, c["instruction_handle"].get<std::int64_t>());
        EXPECT_EQ(d.module_hierarchy, named(c["module_hierarchy"]));
        EXPECT_EQ(rstrip(named(d.traceback)), rstrip(named(c["traceback"])));
      } else {
        EXPECT_TRUE(c["error"].get<std::string>().starts_with(d.message)) << d.message;
        EXPECT_NE(std::string(e.what()).find("delegate node with debug handle " +
                                             std::to_string(*d.delegate_handle)),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DelegatedRun,
                         ::testing::Values("delegated", "delegated_nodebug"));

TEST(DelegatedRun, UnknownBackendIsNamedWithTheOnesSymboliteHas) {
  auto names = delegate_backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "symbolite"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "eager"), names.end());
  EXPECT_EQ(create_delegate_backend("no_such_backend"), nullptr);
}

}  // namespace
}  // namespace symbolite::runtime
