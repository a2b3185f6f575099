#include "symbolite/compiler/verifier.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::compiler {
namespace {

class Verifier {
 public:
  void block(const Block* block, const Node* owner) {
    if (block->owning_node() != owner) fail(owner, "a block's owner pointer is wrong");
    check_links(block);
    for (const Value* v : block->inputs()) define(v);
    for (Node* node = block->first(); node != nullptr && !node->is_return(); node = node->next()) {
      this->node(node);
    }
    check_uses(block->return_node());
    // Values defined in this block are out of scope after it.
    for (const Value* v : block->inputs()) scope_.erase(v);
    for (Node* node = block->first(); node != nullptr && !node->is_return(); node = node->next()) {
      for (const Value* v : node->outputs()) scope_.erase(v);
    }
  }

 private:
  [[noreturn]] static void fail(const Node* node, const std::string& what) {
    throw Error(ErrorKind::kInternal,
                fmt::format("IR verifier: {}{}",
                            node == nullptr ? "" : node->qualified_kind() + ": ", what));
  }

  void define(const Value* v) {
    if (!scope_.insert(v).second)
      fail(v->node(), fmt::format("value %{} defined twice", v->unique()));
  }

  void check_links(const Block* block) {
    const Node* prev = block->param_node();
    for (const Node* n = prev->next();; n = n->next()) {
      if (n == nullptr) fail(nullptr, "a block's node list is not closed by its return node");
      if (n->prev() != prev) fail(n, "node list links are inconsistent");
      if (n->owning_block() != block) fail(n, "a node's owning block is wrong");
      if (n == block->return_node()) break;
      prev = n;
    }
  }

  void check_uses(const Node* node) {
    for (std::size_t i = 0; i < node->inputs().size(); ++i) {
      const Value* v = node->input(i);
      if (!scope_.contains(v)) {
        fail(node,
             fmt::format(
                 "input {} (%{}) is not defined before it is used, or its definition does not "
                 "dominate this use",
                 i, v->unique()));
      }
      const auto& uses = v->uses();
      if (std::find(uses.begin(), uses.end(), Use{const_cast<Node*>(node), i}) == uses.end()) {
        fail(node,
             fmt::format("input {} (%{}) is missing from its value's use list", i, v->unique()));
      }
    }
  }

  void node(const Node* node) {
    check_uses(node);
    for (std::size_t i = 0; i < node->outputs().size(); ++i) {
      const Value* out = node->output(i);
      if (out->node() != node || out->offset() != i)
        fail(node, "an output's defining node or offset is wrong");
      for (const Use& use : out->uses()) {
        if (use.index >= use.user->inputs().size() || use.user->input(use.index) != out) {
          fail(node, fmt::format("output %{} lists a use that does not exist", out->unique()));
        }
      }
    }
    check_shape(node);
    for (const Block* inner : node->blocks()) block(inner, node);
    for (const Value* v : node->outputs()) define(v);
  }

  static void check_shape(const Node* node) {
    const std::string& kind = node->kind();
    std::size_t blocks = node->blocks().size();
    if (kind == "prim::If") {
      if (blocks != 2 || node->inputs().size() != 1)
        fail(node, "an if needs one condition and two blocks");
      for (const Block* b : node->blocks()) {
        if (!b->inputs().empty()) fail(node, "an if's blocks take no inputs");
        if (b->outputs().size() != node->outputs().size()) {
          fail(node, fmt::format("a block yields {} values for {} outputs", b->outputs().size(),
                                 node->outputs().size()));
        }
      }
      const std::string& type = node->input(0)->type();
      if (type != "bool" && type != "Any") fail(node, fmt::format("condition of type {}", type));
    } else if (kind == "prim::Loop") {
      std::size_t carried = node->inputs().size() < 2 ? 0 : node->inputs().size() - 2;
      if (blocks != 1 || node->inputs().size() < 2)
        fail(node, "a loop needs a trip count, a condition and one block");
      const Block* body = node->blocks()[0];
      if (body->inputs().size() != carried + 1 || body->outputs().size() != carried + 1 ||
          node->outputs().size() != carried) {
        fail(node,
             fmt::format(
                 "loop with {} carried values has a body of {} inputs / {} outputs and {} results",
                 carried, body->inputs().size(), body->outputs().size(), node->outputs().size()));
      }
    } else if (blocks != 0) {
      fail(node, "only if and loop nodes have blocks");
    }
    if (kind == "prim::Constant") {
      if (!node->has_attr("value") || node->outputs().size() != 1 || !node->inputs().empty()) {
        fail(node, "a constant has one output, no inputs and a value");
      }
    }
    if ((kind == "prim::GetAttr" || kind == "prim::SetAttr") && !node->has_attr("slot") &&
        !node->has_attr("name")) {
      fail(node, "attribute access names no attribute");
    }
  }

  std::unordered_set<const Value*> scope_;
};

}  // namespace

void verify(const Graph& graph) {
  Verifier verifier;
  verifier.block(graph.block(), nullptr);
}

}  // namespace symbolite::compiler
