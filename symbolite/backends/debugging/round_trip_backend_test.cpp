// `aot_eager`'s checks: a payload as the lowering writes it passes; one the serializer would
// print differently is named at the first line that differs; weights the program does not
// use are refused; and (LoweredRun, lowered_run_test.cpp) every run fixture lowered to
// `aot_eager` gives PyTorch's outputs.
#include "symbolite/backends/debugging/round_trip_backend.h"

#include <memory>

#include <gtest/gtest.h>

#include "symbolite/mobile/delegate_program.h"
#include "symbolite/support/error.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::backends {
namespace {

std::string relu_program() {
  mobile::DelegateProgram p;
  auto x = p.add_input();
  p.outputs = {p.add_step(8, "aten::relu", {x}, 1)};
  return mobile::print_delegate_program(p);
}

tensor::Tensor floats(std::initializer_list<float> values) {
  tensor::Tensor t =
      tensor::Tensor::empty({static_cast<std::int64_t>(values.size())}, tensor::DType::kFloat32);
  std::int64_t i = 0;
  for (float v : values) t.mutable_data<float>()[i++] = v;
  return t;
}

ops::IValue processed(const std::string& text, ops::IValueList weights) {
  auto dict = std::make_shared<ops::Dict>();
  dict->items.emplace_back(
      ops::IValue::string("forward"),
      ops::IValue::tuple({ops::IValue::string(text), ops::IValue::list(std::move(weights))}));
  return ops::IValue::dict(std::move(dict));
}

std::string compile_error(const ops::IValue& payload) {
  try {
    make_round_trip_backend()->compile(payload, ops::IValue::dict(std::make_shared<ops::Dict>()));
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

TEST(RoundTripBackend, APayloadAsWrittenPassesAndRuns) {
  EXPECT_EQ(round_trip_difference(relu_program()), std::nullopt);
  auto backend = make_round_trip_backend();
  auto handles = backend->compile(processed(relu_program(), {}),
                                  ops::IValue::dict(std::make_shared<ops::Dict>()));
  const auto& handle = handles.to_dict().items.at(0).second;
  tensor::Tensor x = floats({-1.0f, 2.0f});
  auto out = backend->execute(handle, {ops::IValue(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_tensor().data<float>()[0], 0.0f);
  EXPECT_EQ(out[0].to_tensor().data<float>()[1], 2.0f);
}

TEST(RoundTripBackend, APayloadPrintedBackDifferentlyIsNamedAtItsLine) {
  // The parser reads a value id with a leading zero; the printer never writes one.
  std::string text = "symbolite-delegate-program 1\ninput\nop 8 aten::relu 1 00 -> 1\noutput 1\n";
  auto difference = round_trip_difference(text);
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(*difference,
            "line 3: 'op 8 aten::relu 1 00 -> 1' was printed back as 'op 8 aten::relu 1 0 -> 1'");
  EXPECT_NE(compile_error(processed(text, {}))
                .find("aot_eager: lowered method 'forward': the payload does not "
                      "survive a second serialization: line 3"),
            std::string::npos);
}

TEST(RoundTripBackend, WeightsTheProgramDoesNotUseAreRefused) {
  tensor::Tensor w = floats({1.0f});
  EXPECT_EQ(
      compile_error(processed(relu_program(), {ops::IValue(w)})),
      "aot_eager: lowered method 'forward': the program uses 0 weights; the payload carries 1");
}

}  // namespace
}  // namespace symbolite::backends
