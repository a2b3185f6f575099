#include "symbolite/compiler/lowering/delegate_program_builder.h"

#include <map>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::compiler {
namespace {

using mobile::DelegateValue;

[[noreturn]] void refuse(const Node& node, const std::string& why) {
  throw Error(ErrorKind::kUnsupported,
              fmt::format("cannot lower {}: {}", node.qualified_kind(), why));
}

class Builder {
 public:
  Builder(const std::vector<DelegateNodeDebug>& nodes, const Graph& graph,
          const pickle::Value& root)
      : graph_(graph), root_(root) {
    for (const auto& n : nodes) handles_[n.node] = n.handle;
  }

  BuiltDelegateProgram build(const Partition& partition) {
    for (Value* input : partition.inputs) ids_[input] = out_.program.add_input();
    for (Node* node : partition.nodes) add(*node);
    for (Value* output : partition.outputs)
      out_.program.outputs.push_back(id(output, *output->node()));
    return std::move(out_);
  }

 private:
  std::size_t id(const Value* value, const Node& user) {
    auto it = ids_.find(value);
    if (it == ids_.end() && is_static_value(value, graph_)) {
      // A static argument shared with nodes outside (a pooled constant, a weight read once):
      // the program gets its own copy, so the backend sees it at load.
      add(*value->node());
      it = ids_.find(value);
    }
    if (it == ids_.end()) {
      refuse(user, fmt::format("input %{} (of {}) is neither computed in the partition nor one "
                               "of its inputs",
                               value->unique(), value->node()->qualified_kind()));
    }
    return it->second;
  }

  std::size_t constant(const pickle::Value& v, const Node& node) {
    using K = pickle::Value::Kind;
    DelegateValue out;
    switch (v.kind()) {
      case K::kNone:
        out.kind = DelegateValue::Kind::kNone;
        break;
      case K::kBool:
        out.kind = DelegateValue::Kind::kBool;
        out.integer = v.as_bool() ? 1 : 0;
        break;
      case K::kInt:
        out.kind = DelegateValue::Kind::kInt;
        out.integer = v.as_int();
        break;
      case K::kDouble:
        out.kind = DelegateValue::Kind::kFloat;
        out.number = v.as_double();
        break;
      case K::kString:
        out.kind = DelegateValue::Kind::kString;
        out.text = std::string(v.as_string());
        break;
      case K::kTensor:
        out.kind = DelegateValue::Kind::kWeight;
        out.integer = static_cast<std::int64_t>(out_.weights.size());
        out_.weights.push_back(v);
        break;
      case K::kList:
        out.kind = DelegateValue::Kind::kList;
        for (const auto& item : v.as_list()) out.items.push_back(constant(item, node));
        break;
      default:
        refuse(node, fmt::format("a {} value cannot be carried into a delegate", v.kind_name()));
    }
    return out_.program.add_value(std::move(out));
  }

  void add(const Node& node) {
    const auto& kind = node.kind();
    if (kind == "prim::Constant") {
      const auto& value = node.attr("value");
      if (value.is(pickle::Value::Kind::kTensor)) {
        refuse(node,
               "a tensor constant of the bytecode (its storage lives in constants/, not "
               "in the module data a payload refers to)");
      }
      ids_[node.output()] = constant(value, node);
    } else if (kind == "prim::GetAttr") {
      auto value = attribute_value(node.output(), graph_, root_);
      if (!value) refuse(node, "an attribute read of something other than the module tree");
      if (!value->is(pickle::Value::Kind::kObject)) ids_[node.output()] = constant(*value, node);
    } else if (kind == "prim::ListConstruct" && is_static_argument(node)) {
      DelegateValue list;
      list.kind = DelegateValue::Kind::kList;
      for (const Value* input : node.inputs()) list.items.push_back(id(input, node));
      ids_[node.output()] = out_.program.add_value(std::move(list));
    } else if (kind == "prim::ListConstruct") {
      DelegateValue list;
      list.kind = DelegateValue::Kind::kList;
      for (const Value* input : node.inputs()) list.items.push_back(id(input, node));
      ids_[node.output()] = out_.program.add_value(std::move(list));
    } else {
      auto handle = handles_.find(&node);
      if (handle == handles_.end()) refuse(node, "no delegate debug handle was recorded for it");
      std::vector<std::size_t> args;
      for (const Value* input : node.inputs()) args.push_back(id(input, node));
      std::size_t first = out_.program.add_step(handle->second, node.qualified_kind(),
                                                std::move(args), node.outputs().size());
      for (std::size_t i = 0; i < node.outputs().size(); ++i) ids_[node.output(i)] = first + i;
    }
  }

  const Graph& graph_;
  const pickle::Value& root_;
  std::map<const Node*, debuginfo::DebugHandle> handles_;
  std::map<const Value*, std::size_t> ids_;
  BuiltDelegateProgram out_;
};

}  // namespace

bool is_static_value(const Value* value, const Graph& graph) {
  const Node* node = value->node();
  if (node->kind() == "prim::Constant") {
    return !node->attr("value").is(pickle::Value::Kind::kTensor);
  }
  if (node->kind() == "prim::GetAttr") {
    // Only reads of the module tree (a weight, a hyper-parameter), never of an object the
    // method made.
    const Value* owner = node->input(0);
    while (owner->node()->kind() == "prim::GetAttr") owner = owner->node()->input(0);
    return !graph.inputs().empty() && owner == graph.inputs().front();
  }
  return node->kind() == "prim::ListConstruct" && is_static_argument(*node);
}

std::optional<pickle::Value> attribute_value(const Value* value, const Graph& graph,
                                             const pickle::Value& root) {
  if (!graph.inputs().empty() && value == graph.inputs().front()) {
    if (!root.is(pickle::Value::Kind::kObject)) return std::nullopt;
    return root;
  }
  const Node* node = value->node();
  if (node->kind() != "prim::GetAttr" || node->inputs().size() != 1) return std::nullopt;
  auto owner = attribute_value(node->input(0), graph, root);
  if (!owner || !owner->is(pickle::Value::Kind::kObject)) return std::nullopt;
  const auto& state = owner->as_object().state;
  if (!state.is(pickle::Value::Kind::kDict)) return std::nullopt;
  const auto& items = state.as_dict();
  if (node->has_attr("name")) {
    for (const auto& [key, item] : items) {
      if (key.is(pickle::Value::Kind::kString) &&
          key.as_string() == node->attr("name").as_string()) {
        return item;
      }
    }
    return std::nullopt;
  }
  if (!node->has_attr("slot")) return std::nullopt;
  auto slot = node->attr("slot").as_int();
  if (slot < 0 || static_cast<std::size_t>(slot) >= items.size()) return std::nullopt;
  return items[static_cast<std::size_t>(slot)].second;
}

BuiltDelegateProgram build_delegate_program(const Partition& partition,
                                            const std::vector<DelegateNodeDebug>& nodes,
                                            const Graph& graph, const pickle::Value& root) {
  return Builder(nodes, graph, root).build(partition);
}

}  // namespace symbolite::compiler
