// Debug handles for delegate nodes: when a partition is lowered, every operator node the
// backend compiles gets a handle from a DebugInfoRecorder, and the handle keeps what the node
// came from — its kind and every origin (several for a node that fused several), each a
// source range and an inlined call stack. This is the map a delegate's failure or profile
// event is turned back into the model's source and module hierarchy with.
#pragma once

#include <string>
#include <vector>

#include "symbolite/compiler/partitioner.h"
#include "symbolite/debuginfo/debug_info_recorder.h"

namespace symbolite::compiler {

struct DelegateNodeDebug {
  debuginfo::DebugHandle handle = debuginfo::kInvalidDebugHandle;
  const Node* node = nullptr;
  std::string node_kind;            // "aten::conv2d"
  std::vector<NodeOrigin> origins;  // the node's own first
};

// One handle per operator node of `partition` (static arguments get none), in graph order; the
// recorder keeps each handle's primary DebugInfo.
std::vector<DelegateNodeDebug> record_delegate_nodes(const Partition& partition,
                                                     debuginfo::DebugInfoRecorder& recorder);

}  // namespace symbolite::compiler
