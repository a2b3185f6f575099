// TO_LIST (`Tensor.tolist()`, tests/fixtures/models/tolist.ptl made by make_tolist_model.py):
// every call gives what PyTorch 1.13's lite interpreter returned, or raises its exception
// class and message; lift -> emit keeps the instruction.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/runtime/tensor_to_list.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/json_tensor.h"
#include "tests/test_support/reemit.h"

namespace symbolite::runtime {
namespace {

using ops::IValue;
using tensor::DType;

nlohmann::json golden() {
  std::ifstream in(testing::fixture_path("goldens/tolist.json"));
  return nlohmann::json::parse(in);
}

// Same structure, kinds and values: floats are equal bit for bit (both sides read the tensor's
// float32 or float64 elements as doubles).
void expect_same(const IValue& got, const nlohmann::json& want, const std::string& where) {
  if (want.is_array()) {
    ASSERT_TRUE(got.is(IValue::Kind::kList) || got.is(IValue::Kind::kTuple)) << where;
    const auto& items = got.is(IValue::Kind::kList) ? got.to_list() : got.to_tuple();
    ASSERT_EQ(items.size(), want.size()) << where;
    for (std::size_t i = 0; i < items.size(); ++i)
      expect_same(items[i], want[i], where + "/" + std::to_string(i));
  } else if (want.is_boolean()) {
    ASSERT_TRUE(got.is(IValue::Kind::kBool)) << where;
    EXPECT_EQ(got.to_bool(), want.get<bool>()) << where;
  } else if (want.is_number_integer()) {
    ASSERT_TRUE(got.is(IValue::Kind::kInt)) << where;
    EXPECT_EQ(got.to_int(), want.get<std::int64_t>()) << where;
  } else {
    ASSERT_TRUE(got.is(IValue::Kind::kDouble)) << where << ": " << got.repr();
    EXPECT_EQ(got.to_double(), want.get<double>()) << where;
  }
}

void expect_pytorchs_results(const mobile::LoadedModel& model) {
  Interpreter interpreter(model);
  const nlohmann::json expected = golden();  // kept alive: the loop walks into it
  for (const auto& c : expected["calls"]) {
    const std::string name = c["name"].get<std::string>();
    std::vector<IValue> inputs;
    for (const auto& input : c["inputs"]) inputs.emplace_back(testing::tensor_from_json(input));
    if (c.contains("output")) {
      expect_same(interpreter.run_method("forward", std::move(inputs)), c["output"], name);
      continue;
    }
    try {
      interpreter.run_method("forward", std::move(inputs));
      ADD_FAILURE() << name << ": no error";
    } catch (const RunError& e) {
      EXPECT_EQ(e.details().python_class, c["error_type"].get<std::string>()) << name;
      EXPECT_EQ(e.details().message, c["message"].get<std::string>()) << name;
    }
  }
}

TEST(TensorToList, GivesPyTorchsResultsAndErrors) {
  expect_pytorchs_results(mobile::LoadedModel::load(testing::fixture_path("models/tolist.ptl")));
}

TEST(TensorToList, SurvivesLiftAndEmit) {
  auto reemitted = testing::lift_emit_and_load("models/tolist.ptl");
  int to_lists = 0;
  for (const auto& ins : reemitted.bytecode.functions.at(0).instructions)
    to_lists += ins.op == mobile::OpCode::kToList;
  EXPECT_EQ(to_lists, 5);
  expect_pytorchs_results(reemitted.model);
}

// PyTorch's lite interpreter fails an internal assert on float16/bfloat16 (it reads only float
// and double); symbolite gives what eager PyTorch's `Tensor.tolist()` gives (the golden's
// `half_precision`, with the elements' bits).
TEST(TensorToList, ReadsHalfPrecisionAsEagerPyTorchDoes) {
  const nlohmann::json expected = golden();  // kept alive: the loop walks into it
  for (const auto& c : expected["half_precision"]) {
    const std::string name = c["dtype"].get<std::string>();
    const bool half = name == "float16";
    auto t = tensor::Tensor::empty(c["shape"].get<std::vector<std::int64_t>>(),
                                   half ? DType::kFloat16 : DType::kBFloat16);
    auto bits = c["bits"].get<std::vector<std::uint16_t>>();
    ASSERT_EQ(bits.size(), static_cast<std::size_t>(t.numel()));
    void* data = half ? static_cast<void*>(t.mutable_data<tensor::Half>())
                      : static_cast<void*>(t.mutable_data<tensor::BFloat16>());
    std::memcpy(data, bits.data(), bits.size() * sizeof(std::uint16_t));
    expect_same(tensor_to_list(t, t.dim(), static_cast<std::int64_t>(ToListElement::kFloat)),
                c["tolist"], name);
  }
}

}  // namespace
}  // namespace symbolite::runtime
