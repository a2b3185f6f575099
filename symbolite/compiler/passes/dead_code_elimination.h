// Dead-code elimination: removes nodes whose results nobody uses and that have no effect
// besides their results (no in-place or out= write, no attribute write, no raise, no warning,
// no method call), and the if/loop nodes left with nothing to do. Returns the number of nodes
// removed.
#pragma once

#include <cstddef>

#include "symbolite/compiler/graph.h"

namespace symbolite::compiler {

std::size_t eliminate_dead_code(Graph& graph);

// Whether `node` may have an effect besides its outputs (writes an argument, an attribute or
// the console, raises, or calls code symbolite cannot see).
bool has_side_effects(const Node& node);

}  // namespace symbolite::compiler
