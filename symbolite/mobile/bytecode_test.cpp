// read_bytecode decodes opcode names once, so everything after reading sees OpCodes: every
// name of PyTorch 1.13's instruction set reads as its OpCode, and an unknown name or an operand
// PyTorch's 32-bit fields cannot hold is refused there, naming the function and instruction.
#include "symbolite/mobile/bytecode.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/archive/model_archive.h"
#include "symbolite/mobile/bytecode_test_util.h"
#include "symbolite/pickle/pickler.h"
#include "symbolite/pickle/unpickler.h"
#include "symbolite/support/error.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::mobile {
namespace {

using pickle::Value;
using symbolite::testing::error_from;
using test::describe;

Value named(const std::string& name, Value value) {
  return Value::tuple({Value::string(name), std::move(value)});
}

// bytecode.pkl of version 8 with one function `__torch__.M.forward` of these instructions.
Value bytecode_of(const std::vector<Value>& instructions) {
  Value code =
      Value::tuple({named("instructions", Value::tuple(instructions)),
                    named("operators", Value::tuple({})), named("constants", Value::tuple({})),
                    named("types", Value::tuple({})), named("register_size", Value::integer(0))});
  return Value::tuple(
      {Value::integer(8), Value::tuple({Value::string("__torch__.M.forward"), std::move(code)})});
}

Value instruction(const std::string& opcode, std::int64_t x, std::int64_t n) {
  return Value::tuple({Value::string(opcode), Value::integer(x), Value::integer(n)});
}

// bytecode.pkl of version 8 with one function `__torch__.M.forward` of one instruction.
Value bytecode_with(const std::string& opcode, std::int64_t x, std::int64_t n) {
  return bytecode_of({instruction(opcode, x, n)});
}

template <typename Read>
std::string text_of(Read&& read) {
  try {
    return describe(read());
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

// read_bytecode of `bytes` unpickled as values, and packed as ModelInfo reads it (again as
// values when the packed read declines): the same text either way.
struct PackedRead {
  std::size_t tables = 0;  // tuples packed
  bool declined = false;   // the packed read returned nullopt
};

PackedRead packed_lists(const Bytes& bytes) {
  const std::string plain = text_of([&] { return read_bytecode(pickle::unpickle(bytes)); });
  pickle::PackedTriples packed{std::string(kInstructionsKey)};
  pickle::UnpickleOptions options;
  options.packed_triples = &packed;
  PackedRead result;
  const std::string with_packing = text_of([&] {
    std::optional<Bytecode> read = read_bytecode(pickle::unpickle(bytes, options), packed);
    result.declined = !read;
    return read ? *read : read_bytecode(pickle::unpickle(bytes));
  });
  EXPECT_EQ(with_packing, plain);
  result.tables = packed.size();
  return result;
}

TEST(Bytecode, DecodesEveryOpcodeNameOnce) {
  for (int i = 0; i <= static_cast<int>(OpCode::kUninitialized); ++i) {
    const auto op = static_cast<OpCode>(i);
    const std::string name(opcode_name(op));
    SCOPED_TRACE(name);
    Bytecode b = read_bytecode(bytecode_with(name, -7, 3));
    ASSERT_EQ(b.functions.size(), 1u);
    ASSERT_EQ(b.functions[0].instructions.size(), 1u);
    EXPECT_EQ(b.functions[0].instructions[0].op, op);
    EXPECT_EQ(b.functions[0].instructions[0].x, -7);
    EXPECT_EQ(b.functions[0].instructions[0].n, 3);
  }
}

TEST(Bytecode, RefusesUnknownOpcodesWhereTheyAre) {
  auto e = error_from([] { read_bytecode(bytecode_with("TELEPORT", 0, 0)); });
  EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
  const std::string text = e.what();
  EXPECT_NE(text.find("__torch__.M.forward"), std::string::npos) << text;
  EXPECT_NE(text.find("instruction 0: unknown opcode 'TELEPORT'"), std::string::npos) << text;
}

TEST(Bytecode, RefusesOperandsPastThirtyTwoBits) {
  EXPECT_NO_THROW(read_bytecode(bytecode_with("JMP", INT32_MIN, INT32_MAX)));
  const std::pair<std::int64_t, std::int64_t> too_wide[] = {{std::int64_t{INT32_MAX} + 1, 0},
                                                            {0, std::int64_t{INT32_MIN} - 1}};
  for (const auto& operands : too_wide) {
    auto e =
        error_from([&] { read_bytecode(bytecode_with("LOAD", operands.first, operands.second)); });
    EXPECT_EQ(e.kind(), ErrorKind::kModel);
    EXPECT_NE(std::string(e.what()).find("instruction 0 (LOAD): operand"), std::string::npos)
        << e.what();
  }
}

TEST(Bytecode, ReadsPackedInstructionListsAsTheirValues) {
  // Every committed model PyTorch wrote: the same functions, packed or not.
  std::size_t tables = 0;
  for (const std::string& name : test::models_with_bytecode()) {
    SCOPED_TRACE(name);
    auto archive = archive::ModelArchive::open(symbolite::testing::fixture_path(name));
    if (!archive.has_record("bytecode.pkl")) continue;
    PackedRead read = packed_lists(archive.read_record("bytecode.pkl"));
    EXPECT_FALSE(read.declined);
    tables += read.tables;
  }
  EXPECT_GT(tables, 20u);
  std::vector<Value> code;  // six nodes: the pickler memoizes a node written twice
  for (int i = 0; i < 6; ++i) code.push_back(instruction("LOAD", i, 0));
  auto read = [](const Value& bytecode) {
    return packed_lists(Bytes::from_vector(pickle::pickle(bytecode)));
  };
  // An error in a packed list: read again as values, the same error, naming the instruction.
  code[4] = instruction("TELEPORT", 0, 0);
  PackedRead teleport = read(bytecode_of(code));
  EXPECT_EQ(teleport.tables, 1u);
  EXPECT_TRUE(teleport.declined);
  code[4] = instruction("JMP", INT32_MIN, INT32_MAX);
  EXPECT_EQ(read(bytecode_of(code)).tables, 1u);
  code[4] = instruction("JMP", std::int64_t{INT32_MAX} + 1, 0);  // LONG1: not packed
  EXPECT_EQ(read(bytecode_of(code)).tables, 0u);
  // A constant shaped like an instruction list is packed too, then read again as values.
  code[4] = instruction("LOAD", 4, 0);
  Value shaped = bytecode_of(code);
  std::vector<Value> constant;
  for (int i = 0; i < 4; ++i) constant.push_back(instruction("x", i, i));
  pickle::ValueList function = shaped.as_tuple()[1].as_tuple();
  pickle::ValueList fields = function[1].as_tuple();
  fields[2] = named("constants", Value::tuple({named("instructions", Value::tuple(constant))}));
  function[1] = Value::tuple(fields);
  PackedRead as_constant = read(Value::tuple({Value::integer(8), Value::tuple(function)}));
  EXPECT_EQ(as_constant.tables, 2u);
  EXPECT_TRUE(as_constant.declined);
  // The instructions field itself kept as a constant too (the pickler memoizes the pair).
  fields[2] = named("constants", Value::tuple({fields[0]}));
  function[1] = Value::tuple(fields);
  PackedRead shared = read(Value::tuple({Value::integer(8), Value::tuple(function)}));
  EXPECT_EQ(shared.tables, 1u);
  EXPECT_TRUE(shared.declined);
}

}  // namespace
}  // namespace symbolite::mobile
