#include "symbolite/compiler/passes/dead_code_elimination.h"

#include <set>
#include <string>

#include "symbolite/ops/schema/schema_table.h"

namespace symbolite::compiler {
namespace {

bool outputs_unused(const Node* node) {
  for (const Value* v : node->outputs()) {
    if (!v->uses().empty()) return false;
  }
  return true;
}

bool block_has_side_effects(const Block* block) {
  for (Node* n = block->first(); n != nullptr && !n->is_return(); n = n->next()) {
    if (has_side_effects(*n)) return true;
  }
  return false;
}

std::size_t sweep(Block* block) {
  std::size_t removed = 0;
  for (Node* node = block->return_node()->prev(); node != block->param_node();) {
    Node* prev = node->prev();
    for (Block* inner : node->blocks()) removed += sweep(inner);
    if (outputs_unused(node) && !has_side_effects(*node)) {
      node->destroy();
      ++removed;
    }
    node = prev;
  }
  return removed;
}

}  // namespace

bool has_side_effects(const Node& node) {
  static const std::set<std::string, std::less<>> effectful = {
      "prim::SetAttr",      "prim::RaiseException", "aten::warn",
      "prim::CallMethod",   "prim::Print",          "aten::_assert",
      "prim::CreateObject", "aten::manual_seed",    "aten::seed"};
  const std::string& kind = node.kind();
  if (effectful.contains(kind)) return true;
  if (kind == "prim::If" || kind == "prim::Loop") {
    for (const Block* b : node.blocks()) {
      if (block_has_side_effects(b)) return true;
    }
    // A loop's trip count is data: an empty loop still does nothing.
    return false;
  }
  if (!kind.empty() && kind.back() == '_') return true;  // in-place: aten::add_
  if (kind.rfind("aten::", 0) == 0 || kind.rfind("prim::", 0) == 0) {
    if (const ops::FunctionSchema* schema = ops::find_schema(node.qualified_kind())) {
      for (const auto& argument : schema->arguments) {
        if (argument.is_write) return true;
      }
    }
  }
  // Random operators change the generator's state.
  static const std::set<std::string, std::less<>> random = {"aten::rand",
                                                            "aten::randn",
                                                            "aten::randint",
                                                            "aten::rand_like",
                                                            "aten::randn_like",
                                                            "aten::randint_like",
                                                            "aten::dropout",
                                                            "aten::bernoulli",
                                                            "aten::multinomial",
                                                            "aten::normal",
                                                            "aten::randperm",
                                                            "aten::uniform_",
                                                            "aten::feature_dropout",
                                                            "aten::alpha_dropout"};
  return random.contains(kind);
}

std::size_t eliminate_dead_code(Graph& graph) {
  std::size_t total = 0;
  for (;;) {
    std::size_t removed = sweep(graph.block());
    total += removed;
    if (removed == 0) return total;
  }
}

}  // namespace symbolite::compiler
