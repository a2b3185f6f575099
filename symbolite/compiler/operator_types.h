// The IR type of an operator's result from its schema type: the schema's own type where it is
// concrete ("Tensor", "int[]", "Tensor?"), "Any" where it names a type variable ("t", "t[]").
#pragma once

#include <string_view>

#include "symbolite/compiler/graph.h"

namespace symbolite::compiler {

Type concrete_type(std::string_view schema_type);

}  // namespace symbolite::compiler
