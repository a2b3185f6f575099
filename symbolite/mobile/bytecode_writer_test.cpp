// bytecode_writer is read_bytecode's inverse: every fixture's bytecode read, written and read
// again is the same Bytecode; shapes of other versions (v5 operators, no schema), tensor
// constants and an empty bytecode survive too.
#include "symbolite/mobile/bytecode_writer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "symbolite/archive/model_archive.h"
#include "symbolite/archive/pickle_record.h"
#include "symbolite/pickle/unpickler.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::mobile {
namespace {

using symbolite::mobile::OpCode;
using symbolite::testing::fixture_path;

std::string describe_args(const std::vector<Argument>& args) {
  std::string out;
  for (const auto& a : args) {
    out += fmt::format("({} {} {}) ", a.name, a.type, a.default_value.debug_string(1u << 20));
  }
  return out;
}

// Every field of a Bytecode, so that two equal renderings mean two equal Bytecodes.
std::string describe(const Bytecode& b) {
  std::string out = fmt::format("version {}\n", b.version);
  for (const auto& fn : b.functions) {
    out += fmt::format("function {} registers {}\n", fn.qualified_name, fn.register_size);
    for (const auto& i : fn.instructions)
      out += fmt::format("  {} {} {}\n", opcode_name(i.op), i.x, i.n);
    for (const auto& op : fn.operators) {
      out += fmt::format("  op {} {} {}\n", op.name, op.overload,
                         op.num_specified_args ? std::to_string(*op.num_specified_args) : "-");
    }
    for (const auto& c : fn.constants) out += "  const " + c.debug_string(1u << 20) + "\n";
    for (const auto& t : fn.types) out += "  type " + t + "\n";
    out +=
        "  args " + describe_args(fn.arguments) + "\n  returns " + describe_args(fn.returns) + "\n";
  }
  return out;
}

Bytecode reread(const Bytecode& b) {
  return read_bytecode(pickle::unpickle(Bytes::from_vector(write_bytecode(b))));
}

std::vector<std::string> models_with_bytecode() {
  std::vector<std::string> out;
  for (const char* dir : {"models", "archive"}) {
    for (const auto& name : symbolite::testing::fixture_files(dir, ".ptl")) {
      out.push_back(std::string(dir) + "/" + name);
    }
  }
  return out;
}

class BytecodeRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(BytecodeRoundTrip, ReadWriteReadIsTheSame) {
  auto archive = archive::ModelArchive::open(fixture_path(GetParam()));
  Bytecode original = archive::decode_pickle_record(
      archive, "bytecode.pkl", [](const pickle::Value& v) { return read_bytecode(v); });
  ASSERT_FALSE(original.functions.empty());
  EXPECT_EQ(describe(read_bytecode(bytecode_to_value(original))), describe(original));
  Bytecode copy = reread(original);
  EXPECT_EQ(describe(copy), describe(original));
  EXPECT_EQ(write_bytecode(copy), write_bytecode(original));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BytecodeRoundTrip, ::testing::ValuesIn(models_with_bytecode()),
                         [](const auto& info) {
                           return symbolite::testing::param_name(info.param);
                         });

TEST(BytecodeWriter, OtherShapesTensorsAndEmptiness) {
  Bytecode b;
  b.version = 5;
  BytecodeFunction f;
  f.qualified_name = "__torch__.M.forward";
  f.instructions = {
      {OpCode::kStoreN, 1, 2}, {OpCode::kLoadC, 0, 0}, {OpCode::kOp, 0, 0}, {OpCode::kRet, 0, 0}};
  f.operators = {{"aten::add", "Tensor", std::nullopt}, {"aten::mul", "", 2}};
  pickle::TensorRef t;
  t.storage = pickle::StorageRef{"Float", "0", "cpu", 6};
  t.sizes = {2, 3};
  t.strides = {3, 1};
  f.constants = {
      pickle::Value::tensor(t),
      pickle::Value::none(),
      pickle::Value::real(0.5),
      pickle::Value::string("s"),
      pickle::Value::boolean(true),
      pickle::Value::list({pickle::Value::integer(1)}).with_list_tag(pickle::ListTag::kInt),
      pickle::Value::dict({{pickle::Value::string("k"), pickle::Value::integer(-7)}}),
      pickle::Value::tuple({pickle::Value::tensor(t)})};
  f.types = {"Tensor", "List[int]"};
  f.register_size = 3;
  b.functions.push_back(f);
  BytecodeFunction no_schema = f;
  no_schema.qualified_name = "__torch__.M.helper";
  b.functions.push_back(no_schema);
  b.functions[0].arguments = {{"self", "__torch__.M", pickle::Value::none()},
                              {"x", "Tensor", pickle::Value::integer(3)}};
  b.functions[0].returns = {{"", "Tensor", pickle::Value::none()}};
  Bytecode copy = reread(b);
  EXPECT_EQ(describe(copy), describe(b));
  EXPECT_EQ(copy.functions[0].constants[0].as_tensor().storage.key, "0");
  EXPECT_EQ(tensor_constant_keys(b), std::vector<std::string>{"0"});

  Bytecode empty;
  EXPECT_EQ(describe(reread(empty)), describe(empty));
  EXPECT_TRUE(tensor_constant_keys(empty).empty());
}

}  // namespace
}  // namespace symbolite::mobile
