// PyTorch 1.13's operator schemas, compiled into the library (pytorch_schemas.txt, made by
// scripts/make_schemas.py from torch._C._jit_get_all_schemas()).
//
// Thread safety: the table is parsed on first use, once (a function-local static); after
// that every lookup is a read of immutable data. Returned pointers live as long as the
// program.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "symbolite/ops/schema/function_schema.h"

namespace symbolite::ops {

// "aten::add.Tensor", or "aten::relu" for the schema without an overload; nullptr if absent.
const FunctionSchema* find_schema(std::string_view full_name);

// Every overload of "aten::add", in the table's (sorted) order; empty if none.
std::vector<const FunctionSchema*> schemas_named(std::string_view name);

// Every schema of the table, sorted by their text.
std::span<const FunctionSchema> all_schemas();

}  // namespace symbolite::ops
