// Folding module attributes: in the top module's methods, `self` is the object data.pkl holds,
// so a chain of attribute reads from `self` that ends at a bool, int, float, string or None —
// `self.training`, `self.bn.training`, `self.aux_logits` — is a constant, provided no method of
// the model writes an attribute of that name (prim::SetAttr). The read becomes a prim::Constant
// (no origin of its own: a constant's instruction records its user) and the if-nodes it decided
// lose their dead branch (`if self.training:` in every inlined BatchNorm, Dropout, ...).
// Returns the number of reads folded plus branches removed.
#pragma once

#include <cstddef>

#include "symbolite/compiler/program.h"

namespace symbolite::compiler {

std::size_t fold_module_attributes(Program& program, Function& function);

// Replaces each prim::If whose condition is a constant by the nodes of the branch taken.
// Returns the number of ifs removed.
std::size_t fold_constant_ifs(Graph& graph);

}  // namespace symbolite::compiler
