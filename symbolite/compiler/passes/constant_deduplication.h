// Constant deduplication (PyTorch's constant pooling): constants of equal value and type
// become one node at the top of the graph, in order of first appearance. Constants carry no
// debug handle of their own (an instruction that loads one records the node that uses it),
// so nothing is lost. Returns the number of constant nodes removed.
#pragma once

#include <cstddef>

#include "symbolite/compiler/graph.h"

namespace symbolite::compiler {

std::size_t deduplicate_constants(Graph& graph);

}  // namespace symbolite::compiler
