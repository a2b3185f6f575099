// read_bytecode decodes opcode names once, so everything after reading sees OpCodes: every
// name of PyTorch 1.13's instruction set reads as its OpCode, and an unknown name or an operand
// PyTorch's 32-bit fields cannot hold is refused there, naming the function and instruction.
#include "symbolite/mobile/bytecode.h"

#include <cstdint>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "symbolite/support/error.h"
#include "tests/test_support/error_from.h"

namespace symbolite::mobile {
namespace {

using pickle::Value;
using symbolite::testing::error_from;

Value named(const std::string& name, Value value) {
  return Value::tuple({Value::string(name), std::move(value)});
}

// bytecode.pkl of version 8 with one function `__torch__.M.forward` of one instruction.
Value bytecode_with(const std::string& opcode, std::int64_t x, std::int64_t n) {
  Value instruction = Value::tuple({Value::string(opcode), Value::integer(x), Value::integer(n)});
  Value code =
      Value::tuple({named("instructions", Value::tuple({instruction})),
                    named("operators", Value::tuple({})), named("constants", Value::tuple({})),
                    named("types", Value::tuple({})), named("register_size", Value::integer(0))});
  return Value::tuple(
      {Value::integer(8), Value::tuple({Value::string("__torch__.M.forward"), std::move(code)})});
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

}  // namespace
}  // namespace symbolite::mobile
