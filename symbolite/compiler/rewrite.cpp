#include "symbolite/compiler/rewrite.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::compiler {
namespace {

// Every result of a replaced node other than the root is used only by replaced nodes.
bool self_contained(const std::vector<Node*>& matched) {
  Node* root = matched.back();
  for (Node* node : matched) {
    if (node == root) continue;
    for (const Value* out : node->outputs()) {
      for (const Use& use : out->uses()) {
        if (std::find(matched.begin(), matched.end(), use.user) == matched.end()) return false;
      }
    }
  }
  return true;
}

bool apply_once(Graph& graph, Block* block, const RewriteRule& rule) {
  for (Node* node = block->first(); node != nullptr && !node->is_return(); node = node->next()) {
    for (Block* inner : node->blocks()) {
      if (apply_once(graph, inner, rule)) return true;
    }
    auto matched = rule.match(node);
    if (!matched || matched->empty() || matched->back() != node || !self_contained(*matched))
      continue;
    std::vector<NodeOrigin> origins = node->origins();
    for (Node* m : *matched) {
      if (m == node) continue;
      origins.insert(origins.end(), m->origins().begin(), m->origins().end());
    }
    Rewriter rewriter(graph, node, std::move(origins));
    std::vector<Value*> results = rule.replace(rewriter, *matched);
    if (results.size() != node->outputs().size()) {
      throw Error(ErrorKind::kInternal,
                  fmt::format("rewrite '{}' returned {} values for {} results", rule.name,
                              results.size(), node->outputs().size()));
    }
    for (std::size_t i = 0; i < results.size(); ++i)
      node->output(i)->replace_all_uses_with(results[i]);
    // Destroy users before what they use: the root first, then the rest in reverse.
    node->destroy();
    for (auto it = matched->rbegin(); it != matched->rend(); ++it) {
      if (*it != node) (*it)->destroy();
    }
    return true;
  }
  return false;
}

}  // namespace

Node* Rewriter::create(std::string kind, const std::vector<Value*>& inputs,
                       std::size_t num_outputs) {
  Node* node = graph_.create(std::move(kind), inputs, num_outputs);
  node->move_before(root_);
  node->set_origins(origins_);
  return node;
}

Value* Rewriter::constant(pickle::Value value) {
  Node* node = graph_.create_constant(std::move(value));
  node->move_before(root_);
  return node->output();
}

std::size_t apply_rewrites(Graph& graph, const std::vector<RewriteRule>& rules) {
  // Rules must make progress; one whose replacement matches again would loop forever.
  const std::size_t limit = 16 * graph.node_count() + 1024;
  std::size_t count = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& rule : rules) {
      while (apply_once(graph, graph.block(), rule)) {
        ++count;
        changed = true;
        if (count > limit) {
          throw Error(ErrorKind::kLimit,
                      fmt::format("rewrite '{}' keeps matching after {} replacements: "
                                  "its replacement matches its own pattern",
                                  rule.name, count));
        }
      }
    }
  }
  return count;
}

}  // namespace symbolite::compiler
