// Turns a partition into the delegate program its backend compiles (mobile/delegate_program.h):
// the partition's inputs become program inputs, its constants and attribute reads become
// program values (tensors — the module's weights — go into the payload's weight list), its
// operators become steps carrying their delegate debug handles, and the values it hands back
// become the program's outputs.
#pragma once

#include <vector>

#include "symbolite/compiler/delegate_debug.h"
#include "symbolite/compiler/partitioner.h"
#include "symbolite/mobile/delegate_program.h"
#include "symbolite/pickle/value.h"

namespace symbolite::compiler {

struct BuiltDelegateProgram {
  mobile::DelegateProgram program;
  std::vector<pickle::Value> weights;  // tensors of data.pkl, shared with the module tree
};

// `nodes`: record_delegate_nodes(partition) (a handle per operator node); `root`: the top
// module object, what `self` reads attributes of. Error(kUnsupported) for a partition that
// cannot become a program (a value it cannot carry), naming the node.
BuiltDelegateProgram build_delegate_program(const Partition& partition,
                                            const std::vector<DelegateNodeDebug>& nodes,
                                            const Graph& graph, const pickle::Value& root);

// Whether `value` is known when the model is lowered — a non-tensor constant, an attribute
// read of the module tree, a list of constants — so that a program can carry its own copy
// instead of taking it as an input.
bool is_static_value(const Value* value, const Graph& graph);

// The value a static-argument chain of attribute reads from `self` yields (a weight, a
// hyper-parameter, a submodule object), or nullopt when `value` is not one.
std::optional<pickle::Value> attribute_value(const Value* value, const Graph& graph,
                                             const pickle::Value& root);

}  // namespace symbolite::compiler
