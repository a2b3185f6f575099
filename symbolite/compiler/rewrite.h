// The pattern-rewrite API: match a small subgraph, replace it, keep debug info by rule.
//
// A `RewriteRule` looks at one node at a time (the pattern's root: the node whose results
// leave the pattern) and, if the pattern matches there, names every node it will replace
// (root last). Its `replace` builds the replacement through a `Rewriter`, which inserts new
// nodes before the root and gives each of them the debug info of everything replaced:
// the root's origin first, then the others' — a node that fuses several keeps them all, and
// the emitter records the first (the root's) for the instruction's handle.
//
// A match is skipped, not applied, when a replaced node other than the root has a result used
// outside the match (replacing it would change what that user sees).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "symbolite/compiler/graph.h"

namespace symbolite::compiler {

class Rewriter {
 public:
  Rewriter(Graph& graph, Node* root, std::vector<NodeOrigin> origins)
      : graph_(graph), root_(root), origins_(std::move(origins)) {}

  // A new node before the root, carrying every replaced node's origin.
  Node* create(std::string kind, const std::vector<Value*>& inputs, std::size_t num_outputs = 1);
  // A constant before the root (no origin of its own, like every constant).
  Value* constant(pickle::Value value);

 private:
  Graph& graph_;
  Node* root_;
  std::vector<NodeOrigin> origins_;
};

struct RewriteRule {
  std::string name;
  // The nodes to replace (root last), or nullopt when the pattern does not match at `root`.
  std::function<std::optional<std::vector<Node*>>(Node* root)> match;
  // Builds the replacement; returns the values that replace the root's outputs, in order.
  std::function<std::vector<Value*>(Rewriter&, const std::vector<Node*>& matched)> replace;
};

// Applies each rule wherever it matches, in graph order (nested blocks included), until no
// rule matches. Returns how many matches were replaced. Each application rescans the graph
// (quadratic, fine for rewrites that fire a few hundred times); a rule that keeps matching
// its own replacement is stopped with Error(kLimit).
std::size_t apply_rewrites(Graph& graph, const std::vector<RewriteRule>& rules);

}  // namespace symbolite::compiler
