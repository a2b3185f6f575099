// How an operator node is called in bytecode, from its PyTorch 1.13 schema: whether it takes
// a variable number of arguments (OPN), and how many of its arguments a call site must pass
// (trailing constants equal to their defaults may be left out; out= arguments are always
// passed) — PyTorch's CalculateNecessaryArgs.
#pragma once

#include <cstddef>
#include <optional>

#include "symbolite/compiler/graph.h"

namespace symbolite::compiler {

struct OperatorCall {
  bool vararg = false;
  std::size_t needed = 0;  // arguments to pass, out= arguments included
  std::size_t out = 0;     // of which out= arguments (passed last)
};

// Nullopt when the operator has no known schema (every input is then passed).
std::optional<OperatorCall> operator_call(const Node& node);

}  // namespace symbolite::compiler
