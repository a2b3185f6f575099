#include "symbolite/compiler/constant_placement.h"

#include <algorithm>
#include <limits>

namespace symbolite::compiler {
namespace {

// The node of `host` that is or contains `node`; null when `node` is not inside `host`.
Node* ancestor_in(Block* host, Node* node) {
  while (node != nullptr && node->owning_block() != host) {
    Block* block = node->owning_block();
    node = block == nullptr ? nullptr : block->owning_node();
  }
  return node;
}

bool encloses(const Block* outer, const Block* inner) {
  for (const Block* b = inner; b != nullptr;) {
    if (b == outer) return true;
    Node* owner = b->owning_node();
    b = owner == nullptr ? nullptr : owner->owning_block();
  }
  return false;
}

// The innermost block enclosing both.
Block* common_block(Block* a, Block* b) {
  while (!encloses(a, b)) a = a->owning_node()->owning_block();
  return a;
}

}  // namespace

void place_constants(Graph& graph, const std::vector<PlacedConstant>& constants, const NodeOrder& order) {
  Node* next = nullptr;  // what constant k+1 became: its node or its anchor
  for (std::size_t k = constants.size(); k-- > 0;) {
    const PlacedConstant& entry = constants[k];
    if (entry.node == nullptr) {
      if (entry.anchor != nullptr) next = entry.anchor;
      continue;
    }
    Node* constant = entry.node;
    const auto& uses = constant->output()->uses();
    Block* host = nullptr;
    Node* first_user = nullptr;
    std::size_t first_order = std::numeric_limits<std::size_t>::max();
    for (const Use& use : uses) {
      host = host == nullptr ? use.user->owning_block() : common_block(host, use.user->owning_block());
      auto it = order.find(use.user);
      std::size_t at = it == order.end() ? std::numeric_limits<std::size_t>::max() - 1 : it->second;
      if (first_user == nullptr || at < first_order) {
        first_user = use.user;
        first_order = at;
      }
    }
    if (host == nullptr) host = graph.block();
    Node* latest = first_user == nullptr ? host->return_node() : ancestor_in(host, first_user);
    Node* target = latest;
    if (next != nullptr) {
      Node* candidate = ancestor_in(host, next);
      if (candidate != nullptr && (candidate == latest || latest->is_after(candidate))) target = candidate;
    }
    constant->move_before(target);
    next = constant;
  }
}

}  // namespace symbolite::compiler
