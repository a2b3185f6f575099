// The verifier rejects every out-of-range operand with the function and instruction named,
// so nothing malformed reaches the interpreter.
#include "symbolite/mobile/bytecode_verifier.h"

#include <memory>

#include <gtest/gtest.h>

#include "symbolite/support/error.h"
#include "tests/test_support/error_from.h"

namespace symbolite::mobile {
namespace {

using symbolite::testing::error_from;

// A well-formed function: x = LOADC 0; STORE 1; LOAD 1; RET — plus the instruction under test
// inserted before RET.
LoadedFunction function_with(Instruction extra) {
  auto code = std::make_shared<BytecodeFunction>();
  code->qualified_name = "__torch__.M.forward";
  code->register_size = 1;
  code->types = {"Tensor"};
  code->instructions = {{OpCode::kLoadC, 0, 0},
                        {OpCode::kStore, 1, 0},
                        {OpCode::kLoad, 1, 0},
                        extra,
                        {OpCode::kRet, 0, 0}};
  LoadedFunction fn;
  fn.code = std::move(code);
  fn.register_size = 1;
  fn.constants = {ops::IValue(1), ops::IValue::string("method")};
  return fn;
}

std::string rejection(Instruction extra) {
  auto e = error_from([&] { verify_function(function_with(extra)); });
  EXPECT_EQ(e.kind(), ErrorKind::kModel);
  return e.what();
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BytecodeVerifier, AcceptsWellFormedCode) {
  EXPECT_NO_THROW(verify_function(function_with({OpCode::kDrop, 0, 0})));
  EXPECT_NO_THROW(verify_function(function_with({OpCode::kJmp, 1, 0})));
  EXPECT_NO_THROW(verify_function(function_with({OpCode::kToList, 0, 0})));
}

TEST(BytecodeVerifier, RejectsRegistersOutsideTheFrame) {
  auto text = rejection({OpCode::kLoad, 2, 0});
  EXPECT_TRUE(mentions(text, "verifier: __torch__.M.forward: instruction 3 (LOAD 2 0)")) << text;
  EXPECT_TRUE(mentions(text, "register 2 out of range (register_size 1)")) << text;
  EXPECT_TRUE(mentions(rejection({OpCode::kMove, 0, 0}), "register 0 out of range"));
  EXPECT_TRUE(mentions(rejection({OpCode::kStoreN, 1, 2}), "register 2 out of range"));
  EXPECT_TRUE(mentions(rejection({OpCode::kDropR, -1, 0}), "register -1 out of range"));
}

TEST(BytecodeVerifier, RejectsIndicesOutOfRange) {
  EXPECT_TRUE(
      mentions(rejection({OpCode::kLoadC, 2, 0}), "constant index 2 out of range (2 constants)"));
  EXPECT_TRUE(
      mentions(rejection({OpCode::kOp, 0, 0}), "operator index 0 out of range (0 operators)"));
  EXPECT_TRUE(mentions(rejection({OpCode::kListConstruct, 1, 2}), "type index 1 out of range"));
  EXPECT_TRUE(mentions(rejection({OpCode::kIsInstance, 0, 2}), "types [0, 2) out of range"));
  EXPECT_TRUE(mentions(rejection({OpCode::kInterfaceCall, 0, 1}), "not a string"));
  EXPECT_TRUE(mentions(rejection({OpCode::kGetAttr, -3, 0}), "negative attribute slot"));
  EXPECT_TRUE(mentions(rejection({OpCode::kTupleConstruct, -1, 0}), "negative count -1"));
}

// OPN's count is how many values the vararg operator takes from the stack.
TEST(BytecodeVerifier, RejectsANegativeVarargCount) {
  LoadedFunction fn = function_with({OpCode::kOpN, 0, -2});
  fn.operators.emplace_back();
  auto e = error_from([&] { verify_function(fn); });
  EXPECT_TRUE(mentions(e.what(), "instruction 3 (OPN 0 -2): negative count -2")) << e.what();
}

TEST(BytecodeVerifier, RejectsJumpsOutsideTheFunction) {
  EXPECT_TRUE(mentions(rejection({OpCode::kJmp, 2, 0}), "jump target 5 outside the function"));
  EXPECT_TRUE(mentions(rejection({OpCode::kJf, -4, 0}), "jump target -1 outside the function"));
  EXPECT_TRUE(mentions(rejection({OpCode::kLoop, 1, 1}), "LOOP needs"));
}

}  // namespace
}  // namespace symbolite::mobile
