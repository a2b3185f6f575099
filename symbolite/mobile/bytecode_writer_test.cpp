// bytecode_writer is read_bytecode's inverse: every fixture's bytecode read, written and read
// again is the same Bytecode; shapes of other versions (v5 operators, no schema), tensor
// constants and an empty bytecode survive too.
#include "symbolite/mobile/bytecode_writer.h"

#include <gtest/gtest.h>

#include "symbolite/archive/model_archive.h"
#include "symbolite/archive/pickle_record.h"
#include "symbolite/mobile/bytecode_test_util.h"
#include "symbolite/pickle/unpickler.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::mobile {
namespace {

using symbolite::mobile::OpCode;
using symbolite::testing::fixture_path;
using test::describe;
using test::models_with_bytecode;

Bytecode reread(const Bytecode& b) {
  return read_bytecode(pickle::unpickle(Bytes::from_vector(write_bytecode(b))));
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
