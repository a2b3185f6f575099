// Where the lifter puts a function's constant nodes. PyTorch's emitter numbers constants in
// the order it meets their nodes (and a loop's fresh trip-counter 0, and an interface call's
// method name, where it meets the loop or call); so placing constant k before constant k+1,
// each before its first use and in a block that holds every use, makes lift → emit reproduce
// the file's constant table. docs/IR.md gives the argument.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "symbolite/compiler/graph.h"

namespace symbolite::compiler {

// The instruction order in which the lifter created nodes (and closed blocks).
using NodeOrder = std::unordered_map<const Node*, std::size_t>;

// One constant-table entry, by index: either a constant node to place (unlinked), or an
// `anchor` — a node that makes the emitter add the constant itself (a loop, an interface call).
struct PlacedConstant {
  Node* node = nullptr;
  Node* anchor = nullptr;
};

void place_constants(Graph& graph, const std::vector<PlacedConstant>& constants,
                     const NodeOrder& order);

}  // namespace symbolite::compiler
