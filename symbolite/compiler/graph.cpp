#include "symbolite/compiler/graph.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "symbolite/debuginfo/module_hierarchy.h"
#include "symbolite/support/error.h"

namespace symbolite::compiler {

// ---------------------------------------------------------------- Value

void Value::replace_all_uses_with(Value* other) {
  if (other == this) return;
  std::vector<Use> uses = std::move(uses_);
  uses_.clear();
  for (const Use& use : uses) {
    use.user->inputs_[use.index] = other;
    other->uses_.push_back(use);
  }
}

// ---------------------------------------------------------------- Node

std::string Node::qualified_kind() const {
  return overload_.empty() ? kind_ : kind_ + "." + overload_;
}

Value* Node::add_input(Value* value) {
  value->uses_.push_back(Use{this, inputs_.size()});
  inputs_.push_back(value);
  return value;
}

void Node::insert_input(std::size_t index, Value* value) {
  if (index > inputs_.size()) throw Error(ErrorKind::kInternal, "insert_input past the end");
  // Uses of later inputs shift by one.
  for (std::size_t i = index; i < inputs_.size(); ++i) {
    for (Use& use : inputs_[i]->uses_) {
      if (use.user == this && use.index == i) ++use.index;
    }
  }
  inputs_.insert(inputs_.begin() + static_cast<std::ptrdiff_t>(index), value);
  value->uses_.push_back(Use{this, index});
}

void Node::drop_use(std::size_t index) {
  auto& uses = inputs_[index]->uses_;
  auto it = std::find(uses.begin(), uses.end(), Use{this, index});
  if (it == uses.end()) throw Error(ErrorKind::kInternal, "use list out of sync");
  uses.erase(it);
}

void Node::replace_input(std::size_t index, Value* value) {
  drop_use(index);
  inputs_.at(index) = value;
  value->uses_.push_back(Use{this, index});
}

void Node::remove_input(std::size_t index) {
  drop_use(index);
  for (std::size_t i = index + 1; i < inputs_.size(); ++i) {
    for (Use& use : inputs_[i]->uses_) {
      if (use.user == this && use.index == i) --use.index;
    }
  }
  inputs_.erase(inputs_.begin() + static_cast<std::ptrdiff_t>(index));
}

void Node::remove_all_inputs() {
  while (!inputs_.empty()) remove_input(inputs_.size() - 1);
}

Value* Node::add_output(Type type) {
  Value* value = graph_->create_value(this, outputs_.size(), std::move(type));
  outputs_.push_back(value);
  return value;
}

void Node::erase_output(std::size_t index) {
  if (!outputs_.at(index)->uses_.empty()) {
    throw Error(ErrorKind::kInternal, fmt::format("erasing used output {} of {}", index, kind_));
  }
  outputs_.erase(outputs_.begin() + static_cast<std::ptrdiff_t>(index));
  for (std::size_t i = index; i < outputs_.size(); ++i) outputs_[i]->offset_ = i;
}

Block* Node::add_block() {
  Block* block = graph_->create_block(this);
  blocks_.push_back(block);
  return block;
}

bool Node::has_attr(std::string_view name) const { return attrs_.find(name) != attrs_.end(); }

const pickle::Value& Node::attr(std::string_view name) const {
  auto it = attrs_.find(name);
  if (it == attrs_.end()) {
    throw Error(ErrorKind::kInternal, fmt::format("{} has no attribute '{}'", kind_, name));
  }
  return it->second;
}

void Node::set_attr(std::string name, pickle::Value value) {
  attrs_.insert_or_assign(std::move(name), std::move(value));
}

void Node::set_origins(std::vector<NodeOrigin> origins) {
  if (origins.empty()) origins.emplace_back();
  origins_ = std::move(origins);
}

std::string Node::module_hierarchy(std::string_view top_type, std::string_view method) const {
  return debuginfo::module_hierarchy(top_type, method, call_stack().get(), kind_);
}

void Node::unlink() {
  if (prev_ != nullptr) prev_->next_ = next_;
  if (next_ != nullptr) next_->prev_ = prev_;
  prev_ = next_ = nullptr;
  owning_block_ = nullptr;
}

void Node::link_after(Node* prev) {
  next_ = prev->next_;
  prev_ = prev;
  if (next_ != nullptr) next_->prev_ = this;
  prev->next_ = this;
  owning_block_ = prev->owning_block_;
}

void Node::move_before(Node* other) {
  if (other->is_param())
    throw Error(ErrorKind::kInternal, "cannot insert before a block's parameters");
  unlink();
  link_after(other->prev_);
}

void Node::move_after(Node* other) {
  if (other->is_return()) throw Error(ErrorKind::kInternal, "cannot insert after a block's return");
  unlink();
  link_after(other);
}

bool Node::is_after(const Node* other) const {
  if (owning_block_ != other->owning_block_) {
    throw Error(ErrorKind::kInternal, "is_after on nodes of different blocks");
  }
  for (const Node* n = other->next_; n != nullptr; n = n->next_) {
    if (n == this) return true;
  }
  return false;
}

void Node::destroy() {
  for (Value* output : outputs_) {
    if (!output->uses_.empty()) {
      throw Error(ErrorKind::kInternal, fmt::format("destroying {} whose output %{} is still used",
                                                    kind_, output->unique()));
    }
  }
  for (Block* block : blocks_) {
    block->return_->remove_all_inputs();
    for (Node* n = block->return_->prev_; n != block->param_; n = block->return_->prev_) {
      n->destroy();
    }
  }
  remove_all_inputs();
  unlink();
  destroyed_ = true;
}

// ---------------------------------------------------------------- Block

std::vector<Node*> Block::nodes() const {
  std::vector<Node*> out;
  for (Node* n = param_->next_; n != return_; n = n->next_) out.push_back(n);
  return out;
}

Node* Block::append(Node* node) {
  node->unlink();
  node->link_after(return_->prev_);
  return node;
}

Node* Block::prepend(Node* node) {
  node->unlink();
  node->link_after(param_);
  return node;
}

// ---------------------------------------------------------------- Graph

Graph::Graph() { block_ = create_block(nullptr); }

Value* Graph::create_value(Node* node, std::size_t offset, Type type) {
  auto value = std::make_unique<Value>();
  value->node_ = node;
  value->offset_ = offset;
  value->unique_ = next_unique_++;
  value->type_ = std::move(type);
  values_.push_back(std::move(value));
  return values_.back().get();
}

Node* Graph::create(std::string kind, const std::vector<Value*>& inputs, std::size_t num_outputs) {
  nodes_.push_back(std::unique_ptr<Node>(new Node(this, std::move(kind))));
  Node* node = nodes_.back().get();
  for (Value* input : inputs) node->add_input(input);
  for (std::size_t i = 0; i < num_outputs; ++i) node->add_output();
  return node;
}

Node* Graph::create_constant(pickle::Value value) {
  Node* node = create("prim::Constant", {}, 1);
  node->output()->set_type(type_of_constant(value));
  node->set_attr("value", std::move(value));
  return node;
}

Block* Graph::create_block(Node* owner) {
  blocks_.push_back(std::make_unique<Block>());
  Block* block = blocks_.back().get();
  block->owning_node_ = owner;
  nodes_.push_back(std::unique_ptr<Node>(new Node(this, "prim::Param")));
  block->param_ = nodes_.back().get();
  nodes_.push_back(std::unique_ptr<Node>(new Node(this, "prim::Return")));
  block->return_ = nodes_.back().get();
  block->param_->owning_block_ = block;
  block->return_->owning_block_ = block;
  block->param_->next_ = block->return_;
  block->return_->prev_ = block->param_;
  return block;
}

std::size_t Graph::node_count() const {
  std::size_t count = 0;
  for_each_node(block_, [&](Node*) { ++count; });
  return count;
}

namespace {

void clone_block(const Block* from, Block* to, Graph& graph,
                 std::unordered_map<const Value*, Value*>& map) {
  to->param_node()->set_origins(from->param_node()->origins());
  for (const Value* input : from->inputs()) {
    Value* copy = to->add_input(input->type());
    copy->set_debug_name(input->debug_name());
    map[input] = copy;
  }
  for (Node* node = from->first(); node != nullptr && !node->is_return(); node = node->next()) {
    std::vector<Value*> inputs;
    for (const Value* input : node->inputs()) inputs.push_back(map.at(input));
    Node* copy = to->append(graph.create(node->kind(), inputs, 0));
    copy->set_overload(node->overload());
    for (const auto& [name, value] : node->attrs()) copy->set_attr(name, value);
    copy->set_origins(node->origins());
    for (const Value* output : node->outputs()) {
      Value* out = copy->add_output(output->type());
      out->set_debug_name(output->debug_name());
      map[output] = out;
    }
    for (const Block* inner : node->blocks()) clone_block(inner, copy->add_block(), graph, map);
  }
  for (const Value* output : from->outputs()) to->add_output(map.at(output));
  to->return_node()->set_origins(from->return_node()->origins());
}

}  // namespace

std::unique_ptr<Graph> Graph::clone() const {
  auto copy = std::make_unique<Graph>();
  std::unordered_map<const Value*, Value*> map;
  clone_block(block_, copy->block_, *copy, map);
  return copy;
}

// ---------------------------------------------------------------- types

namespace {

Type element_type_of(const pickle::ValueList& items, pickle::ListTag tag) {
  switch (tag) {
    case pickle::ListTag::kInt:
      return "int";
    case pickle::ListTag::kDouble:
      return "float";
    case pickle::ListTag::kBool:
      return "bool";
    case pickle::ListTag::kTensor:
      return "Tensor";
    case pickle::ListTag::kGeneric:
      break;
  }
  if (items.empty()) return "Any";
  Type first = type_of_constant(items.front());
  for (const auto& item : items) {
    if (type_of_constant(item) != first) return "Any";
  }
  return first;
}

}  // namespace

Type type_of_constant(const pickle::Value& value) {
  using Kind = pickle::Value::Kind;
  switch (value.kind()) {
    case Kind::kNone:
      return "NoneType";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kDouble:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kTensor:
      return "Tensor";
    case Kind::kList:
      return element_type_of(value.as_list(), value.list_tag()) + "[]";
    case Kind::kTuple: {
      std::string out = "(";
      const auto& items = value.as_tuple();
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ", ";
        out += type_of_constant(items[i]);
      }
      return out + ")";
    }
    case Kind::kDict:
      return "Dict(Any, Any)";
    case Kind::kObject:
      return value.as_object().type_name;
    case Kind::kDevice:
      return "Device";
    case Kind::kStorage:
    case Kind::kGlobal:
      return "Any";
  }
  return "Any";
}

}  // namespace symbolite::compiler
