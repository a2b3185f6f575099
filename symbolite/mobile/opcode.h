// The lite interpreter's instruction set (PyTorch 1.13, bytecode version 8), decoded once at
// load from the opcode names in bytecode.pkl. docs/INSTRUCTIONS.md lists each with its status.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace symbolite::mobile {

enum class OpCode : std::uint8_t {
  kOp,
  kOpN,
  kCall,
  kInterfaceCall,
  kLoad,
  kMove,
  kStore,
  kStoreN,
  kDrop,
  kDropR,
  kLoadC,
  kGetAttr,
  kSetAttr,
  kJf,
  kJmp,
  kLoop,
  kRet,
  kWarn,
  kEnter,
  kExit,
  kListConstruct,
  kListUnpack,
  kTupleConstruct,
  kTupleSlice,
  kTupleIndex,
  kNamedTupleConstruct,
  kDictConstruct,
  kDictIndex,
  kCreateObject,
  kIsInstance,
  kRaiseException,
  kIs,
  kIsNot,
  kNot,
  kFormat,
  kDevice,
  kDtype,
  kDim,
  kIsCuda,
  kToList,
  kNumToTensor,
  kUninitialized,
};

std::optional<OpCode> opcode_from_name(std::string_view name);
std::string_view opcode_name(OpCode op);

// One instruction as the interpreter runs it; bytecode.pkl's (name, X, N) with the name decoded.
// PyTorch keeps X in 32 bits and N in 16, so 32-bit operands hold every file it can run.
struct Instruction {
  OpCode op = OpCode::kRet;
  std::int32_t x = 0;
  std::int32_t n = 0;
};

}  // namespace symbolite::mobile
