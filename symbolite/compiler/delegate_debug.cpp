#include "symbolite/compiler/delegate_debug.h"

namespace symbolite::compiler {

std::vector<DelegateNodeDebug> record_delegate_nodes(const Partition& partition,
                                                     debuginfo::DebugInfoRecorder& recorder) {
  std::vector<DelegateNodeDebug> out;
  for (const Node* node : partition.nodes) {
    if (is_static_argument(*node)) continue;
    debuginfo::DebugInfo info;
    info.range = node->source_range();
    info.node_kind = node->kind();
    info.call_stack = node->call_stack();
    DelegateNodeDebug entry;
    entry.handle = recorder.record(std::move(info));
    entry.node = node;
    entry.node_kind = node->kind();
    entry.origins = node->origins();
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace symbolite::compiler
