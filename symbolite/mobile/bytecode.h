// The bytecode of a lite-interpreter model (`bytecode.pkl`), decoded into plain structs:
//   (version, (qualified_name, code, schema), ...)
//   code   = (("instructions", ((op, X, N), ...)), ("operators", ((name, overload[, num_args]), ...)),
//             ("constants", (...)), ("types", (str, ...)), ("register_size", n))
//   schema = (("arguments", (arg, ...)), ("returns", (arg, ...))),
//            arg = (("name", str), ("type", str), ("default_value", value))
// Fields are found by name, so the tuple order of other bytecode versions does not matter.
// Opcode names are decoded here, once: everything after reading sees `OpCode`s.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/mobile/opcode.h"
#include "symbolite/pickle/packed_triples.h"
#include "symbolite/pickle/value.h"

namespace symbolite::mobile {

struct OperatorRef {
  std::string name;      // "aten::add"
  std::string overload;  // "Tensor"; may be empty
  std::optional<std::int64_t> num_specified_args;

  // "aten::add.Tensor", or the bare name without overload.
  std::string full_name() const;
};

struct Argument {
  std::string name;
  std::string type;
  pickle::Value default_value;
};

struct BytecodeFunction {
  std::string qualified_name;             // "__torch__.Top.forward"
  std::vector<Instruction> instructions;  // opcodes decoded
  std::vector<OperatorRef> operators;
  std::vector<pickle::Value> constants;
  std::vector<std::string> types;
  std::int64_t register_size = 0;
  std::vector<Argument> arguments;
  std::vector<Argument> returns;
};

struct Bytecode {
  std::int64_t version = 0;
  std::vector<BytecodeFunction> functions;

  const BytecodeFunction* find(std::string_view qualified_name) const;
};

// Throws Error(kModel) naming the function and field on malformed shapes, and
// Error(kUnsupported) naming the function and instruction for an opcode PyTorch 1.13 lacks.
Bytecode read_bytecode(const pickle::Value& root);

// The same from a value tree whose instruction lists were unpickled into `packed`
// (pickle/packed_triples.h, kInstructionsKey its key). nullopt when a packed tuple stood
// anywhere but in an instructions field (a constant shaped like one), or when reading fails:
// then read the record again without packing, for the result or the error as values give it.
inline constexpr std::string_view kInstructionsKey = "instructions";
std::optional<Bytecode> read_bytecode(const pickle::Value& root,
                                      const pickle::PackedTriples& packed);

}  // namespace symbolite::mobile
