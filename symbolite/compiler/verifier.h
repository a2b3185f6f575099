// The IR verifier: checks the invariants every pass must keep — values are defined before
// they are used and only used where their definition dominates (SSA), use lists match inputs,
// control-flow nodes have the right blocks with the right arity, types agree where the IR
// fixes them. Runs after every pass in debug builds and in tests (passes.h).
#pragma once

#include "symbolite/compiler/graph.h"

namespace symbolite::compiler {

// Throws Error(kInternal) describing the first broken invariant and the node that breaks it.
void verify(const Graph& graph);

}  // namespace symbolite::compiler
