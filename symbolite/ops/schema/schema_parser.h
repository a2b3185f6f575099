// Parses PyTorch's schema language (torch/csrc/jit/frontend/function_schema_parser.cpp):
//   aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
//
// Accepted: `ns::name.overload`, `*` (later arguments are keyword-only), `...` (varargs /
// varrets), alias annotations (`Tensor(a!)`, `Tensor(a -> *)`, `t[](a!)`, `(b|a)`), `?`,
// `[]`, fixed-size lists (`int[2]`), `Dict(K, V)`, tuples `(A, B)` / `Tuple(A, B)`,
// `Future(T)`, `RRef(T)`, `Union(...)`, `Any`, type variables, named and empty returns.
// Defaults are parsed as PyTorch does (see SchemaArgument::default_value), including the
// names it maps to integers: `float` = 6 and `long` = 4 (ScalarType), `strided` = 0
// (Layout), `Mean` = 1 (Reduction), `contiguous_format` = 0 (MemoryFormat).
//
// Differences from PyTorch (all stricter): no hexadecimal numbers, exponents only as `e`,
// no bare `!` alias, no triple-quoted strings; Union members keep their written order.
#pragma once

#include <string_view>

#include "symbolite/ops/schema/function_schema.h"

namespace symbolite::ops {

// Nesting of types (`Dict(str, (int, Tensor[])[])`) deeper than this is refused (kLimit).
inline constexpr int kMaxSchemaTypeDepth = 32;

// Throws Error(kFormat) naming the byte offset and what was expected; never anything else.
FunctionSchema parse_schema(std::string_view text);

}  // namespace symbolite::ops
