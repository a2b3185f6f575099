#include "symbolite/compiler/passes/fold_module_attributes.h"

#include <set>
#include <unordered_map>

namespace symbolite::compiler {
namespace {

bool is_immutable_scalar(const pickle::Value& v) {
  using Kind = pickle::Value::Kind;
  return v.is(Kind::kBool) || v.is(Kind::kInt) || v.is(Kind::kDouble) || v.is(Kind::kString) ||
         v.is_none();
}

std::set<std::string, std::less<>> written_attributes(const Program& program) {
  std::set<std::string, std::less<>> names;
  for (const auto& fn : program.functions) {
    for_each_node(fn.graph->block(), [&](Node* n) {
      if (n->kind() == "prim::SetAttr" && n->has_attr("name"))
        names.emplace(n->attr("name").as_string());
    });
  }
  return names;
}

}  // namespace

std::size_t fold_constant_ifs(Graph& graph) {
  std::size_t removed = 0;
  std::vector<Node*> ifs;
  for_each_node(graph.block(), [&](Node* n) {
    if (n->kind() == "prim::If" && n->input(0)->node()->kind() == "prim::Constant" &&
        n->input(0)->node()->attr("value").is(pickle::Value::Kind::kBool)) {
      ifs.push_back(n);
    }
  });
  // Outer ifs first; an inner one inside a dropped branch is destroyed with it.
  std::set<Node*> destroyed;
  for (Node* node : ifs) {
    if (destroyed.contains(node)) continue;
    bool taken_then = node->input(0)->node()->attr("value").as_bool();
    Block* taken = node->blocks()[taken_then ? 0 : 1];
    Block* dropped = node->blocks()[taken_then ? 1 : 0];
    for_each_node(dropped, [&](Node* n) { destroyed.insert(n); });
    for (Node* n = taken->first(); n != nullptr && !n->is_return();) {
      Node* next = n->next();
      n->move_before(node);
      n = next;
    }
    for (std::size_t i = 0; i < node->outputs().size(); ++i) {
      node->output(i)->replace_all_uses_with(taken->outputs()[i]);
    }
    node->destroy();
    ++removed;
  }
  return removed;
}

std::size_t fold_module_attributes(Program& program, Function& function) {
  if (program.root_object.is_none() || function.graph->inputs().empty()) return 0;
  // Only the top type's own methods have the root object as `self`.
  if (function.qualified_name.rfind(program.top_type + ".", 0) != 0) return 0;
  auto written = written_attributes(program);
  std::unordered_map<const Value*, const pickle::Value*> objects;
  objects[function.graph->inputs()[0]] = &program.root_object;
  std::vector<std::pair<Node*, pickle::Value>> folds;
  for_each_node(function.graph->block(), [&](Node* n) {
    if (n->kind() != "prim::GetAttr" || !n->has_attr("name")) return;
    auto owner = objects.find(n->input(0));
    if (owner == objects.end()) return;
    const pickle::Value* value =
        pickle::object_attribute(*owner->second, n->attr("name").as_string());
    if (value == nullptr) return;
    if (value->is(pickle::Value::Kind::kObject)) {
      objects[n->output()] = value;
    } else if (is_immutable_scalar(*value) && !written.contains(n->attr("name").as_string())) {
      folds.emplace_back(n, *value);
    }
  });
  for (auto& [node, value] : folds) {
    Node* constant = function.graph->create_constant(value);
    constant->move_before(node);
    node->output()->replace_all_uses_with(constant->output());
    node->destroy();
  }
  return folds.size() + fold_constant_ifs(*function.graph);
}

}  // namespace symbolite::compiler
