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
  kUninitialized,
};

std::optional<OpCode> opcode_from_name(std::string_view name);
std::string_view opcode_name(OpCode op);

struct DecodedInstruction {
  OpCode op;
  std::int32_t x = 0;
  std::int32_t n = 0;
};

}  // namespace symbolite::mobile
