// The operator registry: `aten::add.Tensor` -> kernel. Kernels follow the lite
// interpreter's calling convention: arguments are the last `num_args` values of the stack;
// the kernel pops them and pushes its results.
//
// Models may call an operator with fewer arguments than its schema has (bytecode records
// `num_specified_args`); the missing trailing arguments take the defaults registered here.
// Operators are resolved once, at load (ExecuTorch-style): the interpreter only calls
// function pointers.
//
// Registration is explicit: each kernel family file has a `register_*` function that
// `default_registry()` calls (static registration objects would be dropped by the linker
// from a static library).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbolite/ops/registry/ivalue.h"

namespace symbolite::ops {

using Stack = std::vector<IValue>;
using Kernel = void (*)(Stack&);

struct OperatorDef {
  std::string name;              // "aten::add.Tensor" (no overload: "aten::relu")
  std::size_t num_args = 0;      // as the schema declares them
  std::vector<IValue> defaults;  // for the last defaults.size() arguments
  Kernel kernel = nullptr;
};

class OperatorRegistry {
 public:
  // Throws Error(kInternal) for a duplicate name or impossible defaults.
  void add(OperatorDef def);
  const OperatorDef* find(std::string_view name) const;
  std::size_t size() const { return ops_.size(); }
  std::vector<std::string> names() const;

 private:
  std::unordered_map<std::string, OperatorDef> ops_;
};

// Every operator symbolite implements.
const OperatorRegistry& default_registry();

// Pops the top value of `stack` (kernels use these to take their arguments).
IValue pop(Stack& stack);
// The last `n` values, oldest first, without popping.
inline IValue* last(Stack& stack, std::size_t n) { return stack.data() + stack.size() - n; }
// Drops the last `n` values.
inline void drop(Stack& stack, std::size_t n) { stack.resize(stack.size() - n); }

}  // namespace symbolite::ops
