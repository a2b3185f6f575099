// Writing lite-interpreter bytecode back into `bytecode.pkl`: the inverse of read_bytecode
// (bytecode.h), in PyTorch 1.13's layout:
//   (version, (qualified_name, code, schema), ...)
//   code   = (("instructions", ((op, X, N), ...)), ("operators", (op, ...)),
//             ("constants", (...)), ("types", (str, ...)), ("register_size", n))
//   op     = (name, overload, num_specified_args) when the count is known (bytecode v6 on),
//            (name, overload) when it is not (v5, and what read_bytecode reads as absent)
//   schema = (("arguments", (arg, ...)), ("returns", (arg, ...))),
//            arg = (("name", str), ("type", str), ("default_value", value));
//            left out (a 2-tuple function) when both lists are empty, as read_bytecode
//            reads a function without schema.
// Constants are written back as the Values they were read as: typed lists through
// build_intlist and friends, tensors as the storage persistent ids they were read from
// (their bytes stay in the archive's `constants/` records; model_writer.h copies them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symbolite/mobile/bytecode.h"
#include "symbolite/pickle/value.h"

namespace symbolite::mobile {

// The Value read_bytecode(bytecode_to_value(b)) reads back as `b`.
pickle::Value bytecode_to_value(const Bytecode& bytecode);

// The bytes of `bytecode.pkl` (pickle protocol 2). Deterministic: equal input, equal bytes.
std::vector<std::uint8_t> write_bytecode(const Bytecode& bytecode);

// The storage keys of every tensor constant (in lists, tuples and dicts too), sorted and
// unique: the `constants/<key>` records a model with this bytecode needs.
std::vector<std::string> tensor_constant_keys(const Bytecode& bytecode);

}  // namespace symbolite::mobile
