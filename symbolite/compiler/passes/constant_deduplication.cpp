#include "symbolite/compiler/passes/constant_deduplication.h"

#include <vector>

#include "symbolite/ops/schema/necessary_args.h"

namespace symbolite::compiler {

std::size_t deduplicate_constants(Graph& graph) {
  std::vector<Node*> constants;
  for_each_node(graph.block(), [&](Node* node) {
    if (node->kind() == "prim::Constant") constants.push_back(node);
  });
  std::vector<Node*> kept;
  std::size_t removed = 0;
  Node* insert_after = graph.block()->param_node();
  for (Node* node : constants) {
    Node* same = nullptr;
    for (Node* k : kept) {
      if (k->output()->type() == node->output()->type() &&
          ops::ivalue_equal(k->attr("value"), node->attr("value"))) {
        same = k;
        break;
      }
    }
    if (same != nullptr) {
      node->output()->replace_all_uses_with(same->output());
      node->destroy();
      ++removed;
      continue;
    }
    node->move_after(insert_after);
    insert_after = node;
    kept.push_back(node);
  }
  return removed;
}

}  // namespace symbolite::compiler
