#include "symbolite/mobile/opcode.h"

#include <array>
#include <utility>

namespace symbolite::mobile {
namespace {

constexpr std::array<std::pair<std::string_view, OpCode>, 42> kNames = {{
    {"OP", OpCode::kOp},
    {"OPN", OpCode::kOpN},
    {"CALL", OpCode::kCall},
    {"INTERFACE_CALL", OpCode::kInterfaceCall},
    {"LOAD", OpCode::kLoad},
    {"MOVE", OpCode::kMove},
    {"STORE", OpCode::kStore},
    {"STOREN", OpCode::kStoreN},
    {"DROP", OpCode::kDrop},
    {"DROPR", OpCode::kDropR},
    {"LOADC", OpCode::kLoadC},
    {"GET_ATTR", OpCode::kGetAttr},
    {"SET_ATTR", OpCode::kSetAttr},
    {"JF", OpCode::kJf},
    {"JMP", OpCode::kJmp},
    {"LOOP", OpCode::kLoop},
    {"RET", OpCode::kRet},
    {"WARN", OpCode::kWarn},
    {"ENTER", OpCode::kEnter},
    {"EXIT", OpCode::kExit},
    {"LIST_CONSTRUCT", OpCode::kListConstruct},
    {"LIST_UNPACK", OpCode::kListUnpack},
    {"TUPLE_CONSTRUCT", OpCode::kTupleConstruct},
    {"TUPLE_SLICE", OpCode::kTupleSlice},
    {"TUPLE_INDEX", OpCode::kTupleIndex},
    {"NAMED_TUPLE_CONSTRUCT", OpCode::kNamedTupleConstruct},
    {"DICT_CONSTRUCT", OpCode::kDictConstruct},
    {"DICT_INDEX", OpCode::kDictIndex},
    {"CREATE_OBJECT", OpCode::kCreateObject},
    {"ISINSTANCE", OpCode::kIsInstance},
    {"RAISE_EXCEPTION", OpCode::kRaiseException},
    {"__IS__", OpCode::kIs},
    {"__ISNOT__", OpCode::kIsNot},
    {"__NOT__", OpCode::kNot},
    {"FORMAT", OpCode::kFormat},
    {"DEVICE", OpCode::kDevice},
    {"DTYPE", OpCode::kDtype},
    {"DIM", OpCode::kDim},
    {"IS_CUDA", OpCode::kIsCuda},
    {"TO_LIST", OpCode::kToList},
    {"NUM_TO_TENSOR", OpCode::kNumToTensor},
    {"UN_INITIALIZED", OpCode::kUninitialized},
}};

}  // namespace

std::optional<OpCode> opcode_from_name(std::string_view name) {
  if (name.empty()) return std::nullopt;
  // Called once per instruction a model loads: size and first letter rule out most names
  // before a byte comparison is called for.
  for (const auto& [n, op] : kNames) {
    if (n.size() == name.size() && n[0] == name[0] && n == name) return op;
  }
  return std::nullopt;
}

std::string_view opcode_name(OpCode op) {
  for (const auto& [n, o] : kNames) {
    if (o == op) return n;
  }
  return "?";
}

}  // namespace symbolite::mobile
