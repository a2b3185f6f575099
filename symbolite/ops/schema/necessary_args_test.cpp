#include "symbolite/ops/schema/necessary_args.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/schema/schema_parser.h"
#include "symbolite/ops/schema/schema_table.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::ops {
namespace {

using pickle::Value;

Value int_list(std::vector<std::int64_t> items) {
  pickle::ValueList list;
  for (auto i : items) list.push_back(Value::integer(i));
  return Value::list(std::move(list));
}

NecessaryArgs necessary(std::string_view op, std::vector<CallInput> inputs) {
  const FunctionSchema* schema = find_schema(op);
  if (schema == nullptr) throw std::runtime_error("no schema");
  return calculate_necessary_args(*schema, inputs);
}

TEST(NecessaryArgsSchema, TrailingDefaultsAreDropped) {
  // aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
  auto x = CallInput::non_constant();
  EXPECT_EQ(necessary("aten::add.Tensor", {x, x, CallInput::of(Value::integer(1))}),
            (NecessaryArgs{2, 0}));
  EXPECT_EQ(necessary("aten::add.Tensor", {x, x, CallInput::of(Value::integer(2))}),
            (NecessaryArgs{3, 0}));
  // int 1 and float 1.0 are different IValues: the default does not match.
  EXPECT_EQ(necessary("aten::add.Tensor", {x, x, CallInput::of(Value::real(1.0))}),
            (NecessaryArgs{3, 0}));
  EXPECT_EQ(necessary("aten::add.Tensor", {x, x, x}), (NecessaryArgs{3, 0}));
}

TEST(NecessaryArgsSchema, ListDefaults) {
  // aten::conv2d(input, weight, bias=None, int[2] stride=1, padding=0, dilation=1, groups=1)
  auto x = CallInput::non_constant();
  auto none = CallInput::of(Value::none());
  auto one = CallInput::of(Value::integer(1));
  EXPECT_EQ(necessary("aten::conv2d",
                      {x, x, none, CallInput::of(int_list({1, 1})), CallInput::of(int_list({0, 0})),
                       CallInput::of(int_list({1, 1})), one}),
            (NecessaryArgs{2, 0}));
  EXPECT_EQ(necessary("aten::conv2d",
                      {x, x, none, CallInput::of(int_list({2, 2})), CallInput::of(int_list({0, 0})),
                       CallInput::of(int_list({1, 1})), one}),
            (NecessaryArgs{4, 0}));
  // [1] is not [1, 1].
  EXPECT_EQ(necessary("aten::conv2d",
                      {x, x, none, CallInput::of(int_list({1, 1})), CallInput::of(int_list({0, 0})),
                       CallInput::of(int_list({1})), one}),
            (NecessaryArgs{6, 0}));
  // A list built by prim::ListConstruct is not a constant, so it is passed.
  EXPECT_EQ(necessary("aten::conv2d",
                      {x, x, none, CallInput::list_construct(), CallInput::of(int_list({0, 0})),
                       CallInput::of(int_list({1, 1})), one}),
            (NecessaryArgs{4, 0}));
}

TEST(NecessaryArgsSchema, OutArguments) {
  // aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
  auto x = CallInput::non_constant();
  auto one = CallInput::of(Value::integer(1));
  const FunctionSchema* schema = find_schema("aten::add.out");
  ASSERT_NE(schema, nullptr);
  std::vector<CallInput> inputs{x, x, one, x};
  EXPECT_EQ(calculate_necessary_args(*schema, inputs), (NecessaryArgs{2, 1}));
  // Without trailing out args the out argument itself has no default: all four.
  EXPECT_EQ(calculate_necessary_args(*schema, inputs, false), (NecessaryArgs{4, 0}));
}

TEST(NecessaryArgsSchema, EdgeCases) {
  auto none_args = parse_schema("f() -> ()");
  EXPECT_EQ(calculate_necessary_args(none_args, {}), (NecessaryArgs{0, 0}));
  // PyTorch's own test: sync_stream(int stream_id=-1) called with -1 needs nothing.
  auto sync = parse_schema("sync_stream(int stream_id=-1) -> ()");
  std::vector<CallInput> minus_one{CallInput::of(Value::integer(-1))};
  EXPECT_EQ(calculate_necessary_args(sync, minus_one), (NecessaryArgs{0, 0}));
  // More inputs than arguments (varargs): all of them.
  auto format = parse_schema("aten::format(str self, ...) -> str");
  std::vector<CallInput> three(3, CallInput::non_constant());
  EXPECT_EQ(calculate_necessary_args(format, three), (NecessaryArgs{3, 0}));
  auto two = parse_schema("f(int a, int b=1) -> ()");
  std::vector<CallInput> one_input{CallInput::non_constant()};
  EXPECT_THROW(calculate_necessary_args(two, one_input), Error);
}

TEST(NecessaryArgsSchema, IValueEquality) {
  EXPECT_TRUE(ivalue_equal(Value::none(), Value::none()));
  EXPECT_FALSE(ivalue_equal(Value::integer(1), Value::real(1.0)));
  EXPECT_FALSE(ivalue_equal(Value::integer(1), Value::boolean(true)));
  EXPECT_FALSE(ivalue_equal(Value::real(std::nan("")), Value::real(std::nan(""))));
  EXPECT_TRUE(ivalue_equal(Value::string("mean"), Value::string("mean")));
  EXPECT_TRUE(ivalue_equal(int_list({1, 2}), int_list({1, 2})));
  EXPECT_FALSE(ivalue_equal(int_list({1, 2}), int_list({1, 2, 3})));
  // In a list, an element identical bit for bit is equal (IValue::is), even NaN.
  EXPECT_TRUE(ivalue_equal(Value::list({Value::real(std::nan(""))}),
                           Value::list({Value::real(std::nan(""))})));
  EXPECT_FALSE(ivalue_equal(Value::list({Value::real(1.0)}), Value::list({Value::integer(1)})));
}

}  // namespace
}  // namespace symbolite::ops

namespace symbolite::ops {
namespace {

pickle::Value decode(const nlohmann::json& j) {
  if (j.contains("none")) return pickle::Value::none();
  if (j.contains("bool")) return pickle::Value::boolean(j["bool"].get<bool>());
  if (j.contains("int")) return pickle::Value::integer(j["int"].get<std::int64_t>());
  if (j.contains("float")) return pickle::Value::real(j["float"].get<double>());
  if (j.contains("str")) return pickle::Value::string(j["str"].get<std::string>());
  if (j.contains("list")) {
    pickle::ValueList items;
    for (const auto& item : j["list"]) items.push_back(decode(item));
    return pickle::Value::list(std::move(items));
  }
  throw std::runtime_error("unexpected golden value " + j.dump());
}

// tests/fixtures/ops/num_specified_args.json: for each operator PyTorch's emitter wrote, the
// call sites of the scripted graph; the maximum of args + out_args over them must be the
// num_specified_args PyTorch wrote into bytecode.pkl.
TEST(NecessaryArgsSchema, MatchesPytorchBytecode) {
  std::ifstream in(testing::fixture_path("ops/num_specified_args.json"));
  ASSERT_TRUE(in) << "missing fixture";
  auto golden = nlohmann::json::parse(in);
  ASSERT_GE(golden["cases"].size(), 15u);
  for (const auto& c : golden["cases"]) {
    std::string op = c["operator"];
    const FunctionSchema* schema = find_schema(op);
    ASSERT_NE(schema, nullptr) << op;
    ASSERT_FALSE(c["call_sites"].empty()) << op;
    std::size_t most = 0;
    for (const auto& site : c["call_sites"]) {
      std::vector<CallInput> inputs;
      for (const auto& input : site) {
        if (input.contains("constant")) {
          inputs.push_back(CallInput::of(decode(input["constant"])));
        } else if (input.contains("list_construct")) {
          inputs.push_back(CallInput::list_construct());
        } else {
          inputs.push_back(CallInput::non_constant());
        }
      }
      NecessaryArgs n = calculate_necessary_args(*schema, inputs);
      most = std::max(most, n.args + n.out_args);
    }
    EXPECT_EQ(most, c["num_specified_args"].get<std::size_t>())
        << c["module"].get<std::string>() << " " << op;
  }
}

}  // namespace
}  // namespace symbolite::ops
