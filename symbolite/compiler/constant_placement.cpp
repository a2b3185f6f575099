#include "symbolite/compiler/constant_placement.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

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

void place_constants(Graph& graph, const std::vector<PlacedConstant>& constants,
                     const NodeOrder& order) {
  constexpr std::size_t kEnd = std::numeric_limits<std::size_t>::max();
  // Emission position of a node: its lifting order; a placed constant's is that of the node it
  // went before.
  std::unordered_map<const Node*, const Node*> placed_before;
  auto position = [&](const Node* node) {
    for (;;) {
      auto it = order.find(node);
      if (it != order.end()) return it->second;
      auto before = placed_before.find(node);
      if (before == placed_before.end()) return kEnd;
      node = before->second;
    }
  };
  Node* next = nullptr;  // what constant k+1 became: its node or its anchor
  for (std::size_t k = constants.size(); k-- > 0;) {
    const PlacedConstant& entry = constants[k];
    if (entry.node == nullptr) {
      if (entry.anchor != nullptr) next = entry.anchor;
      continue;
    }
    Node* constant = entry.node;
    Block* host = nullptr;
    Node* first_user = nullptr;
    std::size_t first = kEnd;
    for (const Use& use : constant->output()->uses()) {
      host =
          host == nullptr ? use.user->owning_block() : common_block(host, use.user->owning_block());
      std::size_t at = position(use.user);
      if (first_user == nullptr || at < first) {
        first_user = use.user;
        first = at;
      }
    }
    if (host == nullptr) host = graph.block();
    Node* target =
        first_user == nullptr ? graph.block()->return_node() : ancestor_in(host, first_user);
    if (first_user == nullptr) host = graph.block();
    // Constant k must be emitted before constant k+1: when k+1 comes first, go before it, in
    // a block that encloses both.
    if (next != nullptr && position(next) <= position(target)) {
      host = common_block(host, next->owning_block());
      target = ancestor_in(host, next);
    }
    constant->move_before(target);
    placed_before[constant] = target;
    next = constant;
  }
}

}  // namespace symbolite::compiler
