#include "symbolite/pickle/opcodes.h"

namespace symbolite::pickle {

std::string_view opcode_name(std::uint8_t byte) {
  switch (static_cast<Opcode>(byte)) {
    case Opcode::kMark: return "MARK";
    case Opcode::kStop: return "STOP";
    case Opcode::kPop: return "POP";
    case Opcode::kPopMark: return "POP_MARK";
    case Opcode::kDup: return "DUP";
    case Opcode::kFloat: return "FLOAT";
    case Opcode::kInt: return "INT";
    case Opcode::kBinInt: return "BININT";
    case Opcode::kBinInt1: return "BININT1";
    case Opcode::kLong: return "LONG";
    case Opcode::kBinInt2: return "BININT2";
    case Opcode::kNone: return "NONE";
    case Opcode::kPersId: return "PERSID";
    case Opcode::kBinPersId: return "BINPERSID";
    case Opcode::kReduce: return "REDUCE";
    case Opcode::kString: return "STRING";
    case Opcode::kBinString: return "BINSTRING";
    case Opcode::kShortBinString: return "SHORT_BINSTRING";
    case Opcode::kUnicode: return "UNICODE";
    case Opcode::kBinUnicode: return "BINUNICODE";
    case Opcode::kAppend: return "APPEND";
    case Opcode::kBuild: return "BUILD";
    case Opcode::kGlobal: return "GLOBAL";
    case Opcode::kDict: return "DICT";
    case Opcode::kEmptyDict: return "EMPTY_DICT";
    case Opcode::kAppends: return "APPENDS";
    case Opcode::kGet: return "GET";
    case Opcode::kBinGet: return "BINGET";
    case Opcode::kInst: return "INST";
    case Opcode::kLongBinGet: return "LONG_BINGET";
    case Opcode::kList: return "LIST";
    case Opcode::kEmptyList: return "EMPTY_LIST";
    case Opcode::kObj: return "OBJ";
    case Opcode::kPut: return "PUT";
    case Opcode::kBinPut: return "BINPUT";
    case Opcode::kLongBinPut: return "LONG_BINPUT";
    case Opcode::kSetItem: return "SETITEM";
    case Opcode::kTuple: return "TUPLE";
    case Opcode::kEmptyTuple: return "EMPTY_TUPLE";
    case Opcode::kSetItems: return "SETITEMS";
    case Opcode::kBinFloat: return "BINFLOAT";
    case Opcode::kProto: return "PROTO";
    case Opcode::kNewObj: return "NEWOBJ";
    case Opcode::kExt1: return "EXT1";
    case Opcode::kExt2: return "EXT2";
    case Opcode::kExt4: return "EXT4";
    case Opcode::kTuple1: return "TUPLE1";
    case Opcode::kTuple2: return "TUPLE2";
    case Opcode::kTuple3: return "TUPLE3";
    case Opcode::kNewTrue: return "NEWTRUE";
    case Opcode::kNewFalse: return "NEWFALSE";
    case Opcode::kLong1: return "LONG1";
    case Opcode::kLong4: return "LONG4";
    case Opcode::kBinBytes: return "BINBYTES";
    case Opcode::kShortBinBytes: return "SHORT_BINBYTES";
    case Opcode::kShortBinUnicode: return "SHORT_BINUNICODE";
    case Opcode::kBinUnicode8: return "BINUNICODE8";
    case Opcode::kBinBytes8: return "BINBYTES8";
    case Opcode::kEmptySet: return "EMPTY_SET";
    case Opcode::kAddItems: return "ADDITEMS";
    case Opcode::kFrozenSet: return "FROZENSET";
    case Opcode::kNewObjEx: return "NEWOBJ_EX";
    case Opcode::kStackGlobal: return "STACK_GLOBAL";
    case Opcode::kMemoize: return "MEMOIZE";
    case Opcode::kFrame: return "FRAME";
    case Opcode::kByteArray8: return "BYTEARRAY8";
    case Opcode::kNextBuffer: return "NEXT_BUFFER";
    case Opcode::kReadOnlyBuffer: return "READONLY_BUFFER";
  }
  return {};
}

}  // namespace symbolite::pickle
