// Operator upgraders (tests/fixtures/upgraders/*.ptl, made by make_upgrader_models.py): files
// claiming an old operator version run what PyTorch 1.13's lite interpreter runs for them —
// every call of goldens/upgraders.json gives PyTorch's outputs (integers exact, floats within
// 1e-6 relative) or its error; the same model at the current version is not upgraded.
#include "symbolite/mobile/operator_upgraders.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::mobile {
namespace {

using ops::IValue;
using tensor::DType;
using tensor::Tensor;

const std::map<std::string, DType>& dtypes() {
  static const std::map<std::string, DType> names = {{"float32", DType::kFloat32},
                                                     {"float64", DType::kFloat64},
                                                     {"int64", DType::kInt64},
                                                     {"int32", DType::kInt32}};
  return names;
}

Tensor tensor_from(const nlohmann::json& j) {
  DType dtype = dtypes().at(j.at("dtype").get<std::string>());
  auto t = Tensor::empty(j.at("shape").get<std::vector<std::int64_t>>(), dtype);
  const nlohmann::json& data = j.at("data");
  for (std::size_t i = 0; i < data.size(); ++i) {
    switch (dtype) {
      case DType::kFloat32:
        t.mutable_data<float>()[i] = data.at(i).get<float>();
        break;
      case DType::kFloat64:
        t.mutable_data<double>()[i] = data.at(i).get<double>();
        break;
      case DType::kInt64:
        t.mutable_data<std::int64_t>()[i] = data.at(i).get<std::int64_t>();
        break;
      default:
        t.mutable_data<std::int32_t>()[i] = data.at(i).get<std::int32_t>();
    }
  }
  return t;
}

void expect_tensor(const IValue& got, const nlohmann::json& want, const std::string& where) {
  ASSERT_TRUE(got.is(IValue::Kind::kTensor)) << where;
  const Tensor t = got.to_tensor().contiguous();
  ASSERT_EQ(t.dtype(), dtypes().at(want.at("dtype").get<std::string>())) << where;
  ASSERT_EQ(t.sizes(), want.at("shape").get<std::vector<std::int64_t>>()) << where;
  const nlohmann::json& data = want.at("data");
  ASSERT_EQ(static_cast<std::size_t>(t.numel()), data.size()) << where;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data.at(i).is_number_integer()) {
      EXPECT_EQ(ops::element_as_double(t, static_cast<std::int64_t>(i)),
                static_cast<double>(data.at(i).get<std::int64_t>()))
          << where << "[" << i << "]";
    } else {
      double w = data.at(i).get<double>();
      EXPECT_NEAR(ops::element_as_double(t, static_cast<std::int64_t>(i)), w, 1e-6 * std::fabs(w))
          << where << "[" << i << "]";
    }
  }
}

// Runs every call of the golden entry `model` and compares with PyTorch's outputs or error
// (its class, and unless `same_message` is false its message).
void expect_pytorchs_results(const nlohmann::json& model, bool same_message = true) {
  const std::string file = model.at("file").get<std::string>();
  const LoadedModel loaded = LoadedModel::load(testing::fixture_path(file));
  ASSERT_TRUE(loaded.operator_version.has_value()) << file;
  EXPECT_EQ(*loaded.operator_version, model.at("operator_version").get<std::uint64_t>()) << file;
  runtime::Interpreter interpreter(loaded);
  for (const auto& call : model.at("calls")) {
    const std::string where = file + " " + call.at("name").get<std::string>();
    std::vector<IValue> inputs;
    for (const auto& input : call.at("inputs")) inputs.emplace_back(tensor_from(input));
    if (call.contains("output")) {
      IValue got = interpreter.run_method("forward", std::move(inputs));
      const nlohmann::json& outputs = call.at("output");
      if (outputs.size() == 1 && !got.is(IValue::Kind::kTuple)) {
        expect_tensor(got, outputs.at(0), where);
        continue;
      }
      ASSERT_TRUE(got.is(IValue::Kind::kTuple)) << where;
      const auto& items = got.to_tuple();
      ASSERT_EQ(items.size(), outputs.size()) << where;
      for (std::size_t i = 0; i < items.size(); ++i) {
        expect_tensor(items[i], outputs.at(i), where + " output " + std::to_string(i));
      }
      continue;
    }
    try {
      interpreter.run_method("forward", std::move(inputs));
      ADD_FAILURE() << where << ": no error";
    } catch (const runtime::RunError& e) {
      EXPECT_EQ(e.details().python_class, call.at("error_type").get<std::string>()) << where;
      if (same_message) {
        EXPECT_EQ(e.details().message, call.at("message").get<std::string>()) << where;
      }
    }
  }
}

const nlohmann::json& golden() {
  static const nlohmann::json g = testing::load_golden("upgraders");
  return g;
}

const nlohmann::json& entry(std::string_view stem) {
  const std::string file = "upgraders/" + std::string(stem) + ".ptl";
  for (const auto& m : golden().at("models")) {
    if (m.at("file").get<std::string>() == file) return m;
  }
  throw std::runtime_error("no golden for " + file);
}

// Loading fails with a message containing `expected`, where PyTorch fails too (the golden
// has an error) or where symbolite lacks the operator the upgrader calls.
void expect_refused(std::string_view stem, std::string_view expected) {
  const std::string file = "upgraders/" + std::string(stem) + ".ptl";
  try {
    (void)LoadedModel::load(testing::fixture_path(file));
    ADD_FAILURE() << file << " loads";
  } catch (const Error& e) {
    EXPECT_NE(e.text().find(expected), std::string::npos) << e.text();
  }
}

TEST(OperatorUpgraders, DivTruncatesIntegersBeforeVersion4) {
  expect_pytorchs_results(entry("div_v3"));
  expect_pytorchs_results(entry("div_inplace_v3"));
}

TEST(OperatorUpgraders, BytecodeVersion5PushesEveryArgument) {
  expect_pytorchs_results(entry("div_v3_bc5"));
}

TEST(OperatorUpgraders, CurrentOperatorVersionIsNotUpgraded) {
  expect_pytorchs_results(entry("div_v4"));
  expect_pytorchs_results(entry("div_inplace_v4"));
  expect_pytorchs_results(entry("gelu_v10"));
  const LoadedModel model = LoadedModel::load(testing::fixture_path("upgraders/div_v4.ptl"));
  for (const auto& entry : model.functions) {
    for (const auto& op : entry.second.operators) EXPECT_TRUE(op.upgrader.empty()) << op.name;
  }
}

TEST(OperatorUpgraders, GeluWithoutApproximateBeforeVersion10) {
  expect_pytorchs_results(entry("gelu_v9"));
  const LoadedModel model = LoadedModel::load(testing::fixture_path("upgraders/gelu_v9.ptl"));
  int upgraded = 0;
  for (const auto& entry : model.functions) {
    for (const auto& op : entry.second.operators) upgraded += op.upgrader == "gelu_0_9" ? 1 : 0;
  }
  EXPECT_EQ(upgraded, 1);
}

// PyTorch's upgrader takes one argument; a bytecode-5 call site of today's gelu pushes two
// (the tensor and "none"): PyTorch hands the string to gelu, and so does symbolite (a bytecode-5
// file does not say how many it pushes: an old file's gelu pushes one). The messages differ
// ("Expected Tensor but got String" from PyTorch's IValue).
TEST(OperatorUpgraders, GeluUpgraderGivenTwoArgumentsFailsAsInPyTorch) {
  expect_pytorchs_results(entry("gelu_v9_bc5"), false);
}

// A call that records `approximate` cannot be upgraded: PyTorch fails on it when it runs
// (the golden), symbolite when it loads.
TEST(OperatorUpgraders, GeluWithApproximateInOldFileIsRefused) {
  const auto& calls = entry("gelu_tanh_v9").at("calls");
  ASSERT_FALSE(calls.empty());
  for (const auto& call : calls) EXPECT_TRUE(call.contains("error_type"));
  expect_refused("gelu_tanh_v9",
                 "aten::gelu is called with 2 arguments, but the file's operator "
                 "version 9 makes PyTorch 1.13 run it as the upgrader gelu_0_9");
}

// aten::full has no upgrader in PyTorch 1.13's mobile table: an integer fill stays integer.
TEST(OperatorUpgraders, FullIsNotUpgradedByTheLiteInterpreter) {
  expect_pytorchs_results(entry("full_v4"));
}

// linspace before operator version 8 and logspace before 9 (steps optional) run PyTorch's
// upgraders linspace_0_7 and logspace_0_8 on today's kernels.
TEST(OperatorUpgraders, LinspaceAndLogspaceBeforeVersion8) {
  ASSERT_TRUE(entry("linspace_v7_bc5").at("calls").at(0).contains("output"));
  expect_pytorchs_results(entry("linspace_v7_bc5"));
  const LoadedModel model =
      LoadedModel::load(testing::fixture_path("upgraders/linspace_v7_bc5.ptl"));
  std::map<std::string, int> upgraded;
  for (const auto& entry : model.functions) {
    for (const auto& op : entry.second.operators) {
      if (!op.upgrader.empty()) ++upgraded[op.name + " " + std::string(op.upgrader)];
    }
  }
  EXPECT_EQ(upgraded, (std::map<std::string, int>{{"aten::linspace linspace_0_7", 1},
                                                  {"aten::logspace logspace_0_8", 1}}));
}

TEST(OperatorUpgraders, SelectedByOperatorVersionRange) {
  EXPECT_EQ(find_upgrader("aten::div.Tensor", 3)->def.name, "div_Tensor_0_3");
  EXPECT_EQ(find_upgrader("aten::div.Tensor", 0)->def.name, "div_Tensor_0_3");
  EXPECT_EQ(find_upgrader("aten::div.Tensor", 4), nullptr);
  EXPECT_EQ(find_upgrader("aten::gelu", 9)->def.name, "gelu_0_9");
  EXPECT_EQ(find_upgrader("aten::gelu", 10), nullptr);
  EXPECT_EQ(find_upgrader("aten::full", 0), nullptr);
  EXPECT_EQ(find_upgrader("aten::add.Tensor", 0), nullptr);
}

TEST(OperatorUpgraders, EveryGoldenModelIsCovered) {
  // A fixture added to the generator must be tested here too.
  EXPECT_EQ(golden().at("models").size(), 11U);
}

}  // namespace
}  // namespace symbolite::mobile
