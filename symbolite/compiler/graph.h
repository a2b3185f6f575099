// The compiler's IR: a `Graph` of `Node`s in nested `Block`s, whose `Value`s are in SSA form,
// in the spirit of PyTorch's JIT IR (torch/csrc/jit/ir/ir.h) so that a TorchScript frontend can
// produce the same IR later.
//
//   graph(%self : __torch__.Net, %x : Tensor):
//     %1 : __torch__.torch.nn.modules.conv.Conv2d = prim::GetAttr[name="conv"](%self)
//     %2 : Tensor = aten::relu(%x)   # model.py:12:8  top(Net)::forward.aten::relu
//     return (%2)
//
// - A `Node` is named by its kind (`aten::conv2d`, `prim::If`, ...) plus, for operators, an
//   overload (`Tensor` of `aten::add.Tensor`). Control flow nests: `prim::If` has two blocks,
//   `prim::Loop` one, each block with its own inputs (parameters) and outputs (returns).
// - Every node carries its debug info (`NodeDebugInfo`): the source range and the inlined call
//   stack of what it came from; a node that fuses several keeps every origin (`origins()`).
// - Attributes (`name`, `value`, `slot`, `types`, ...) are `pickle::Value`s, the same values the
//   bytecode holds, so constants round-trip without conversion.
//
// Ownership: the Graph owns every Node, Block and Value it created, for its whole lifetime;
// destroyed nodes are unlinked and their values detached, but the memory stays with the
// graph until it dies. Raw pointers into a graph are valid while the graph lives.
//
// Thread safety: none; a graph is built and rewritten by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/debuginfo/inlined_call_stack.h"
#include "symbolite/debuginfo/source_range.h"
#include "symbolite/pickle/value.h"

namespace symbolite::compiler {

class Block;
class Graph;
class Node;

// A TorchScript type, as PyTorch's annotation_str prints it ("Tensor", "int[]",
// "Dict(str, Tensor)", "__torch__.Net"). "Any" where the lifter cannot tell.
using Type = std::string;

class Value;

struct Use {
  Node* user = nullptr;
  std::size_t index = 0;  // which input of `user`
  bool operator==(const Use&) const = default;
};

class Value {
 public:
  // The node that defines this value; for block inputs, the block's parameter node.
  Node* node() const { return node_; }
  std::size_t offset() const { return offset_; }
  std::size_t unique() const { return unique_; }
  const Type& type() const { return type_; }
  void set_type(Type type) { type_ = std::move(type); }
  // Optional name for printing (`%x`); empty prints the unique number.
  const std::string& debug_name() const { return debug_name_; }
  void set_debug_name(std::string name) { debug_name_ = std::move(name); }
  const std::vector<Use>& uses() const { return uses_; }

  // Rewrites every use of this value to use `other` instead.
  void replace_all_uses_with(Value* other);

 private:
  friend class Graph;
  friend class Node;
  Node* node_ = nullptr;
  std::size_t offset_ = 0;
  std::size_t unique_ = 0;
  Type type_ = "Any";
  std::string debug_name_;
  std::vector<Use> uses_;
};

// Where a node came from: its source range and the inlined call stack that led to it.
struct NodeOrigin {
  debuginfo::SourceRange range;               // unknown when the file had none
  debuginfo::InlinedCallStackPtr call_stack;  // null for the top method's own nodes
};

class Node {
 public:
  const std::string& kind() const { return kind_; }
  // "Tensor" for aten::add.Tensor; empty for non-operators and unnamed overloads.
  const std::string& overload() const { return overload_; }
  void set_overload(std::string overload) { overload_ = std::move(overload); }
  // "aten::add.Tensor", or the bare kind.
  std::string qualified_kind() const;

  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* input(std::size_t i) const { return inputs_.at(i); }
  Value* output(std::size_t i = 0) const { return outputs_.at(i); }
  const std::vector<Block*>& blocks() const { return blocks_; }
  Block* owning_block() const { return owning_block_; }
  Graph* owning_graph() const { return graph_; }

  Node* next() const { return next_; }
  Node* prev() const { return prev_; }
  // True for the sentinel parameter and return nodes of a block.
  bool is_param() const { return kind_ == "prim::Param"; }
  bool is_return() const { return kind_ == "prim::Return"; }

  // --- inputs and outputs
  Value* add_input(Value* value);
  void insert_input(std::size_t index, Value* value);
  void replace_input(std::size_t index, Value* value);
  void remove_input(std::size_t index);
  void remove_all_inputs();
  Value* add_output(Type type = "Any");
  // Removes output `index`, which must have no uses.
  void erase_output(std::size_t index);
  Block* add_block();

  // --- attributes
  bool has_attr(std::string_view name) const;
  const pickle::Value& attr(std::string_view name) const;  // Error(kInternal) when absent
  void set_attr(std::string name, pickle::Value value);
  const std::map<std::string, pickle::Value, std::less<>>& attrs() const { return attrs_; }

  // --- debug info
  // The primary origin (the one an emitted instruction's debug handle records).
  const NodeOrigin& origin() const { return origins_.front(); }
  // Every origin: more than one when this node replaced (fused) several.
  const std::vector<NodeOrigin>& origins() const { return origins_; }
  void set_origin(NodeOrigin origin) { origins_.assign(1, std::move(origin)); }
  void add_origin(NodeOrigin origin) { origins_.push_back(std::move(origin)); }
  void set_origins(std::vector<NodeOrigin> origins);
  const debuginfo::SourceRange& source_range() const { return origin().range; }
  const debuginfo::InlinedCallStackPtr& call_stack() const { return origin().call_stack; }
  // PyTorch's Node::moduleHierarchy rendered in full, as symbolite's symbolicator prints it:
  // "top(Net)::forward.layer1(Sequential)::forward.aten::conv2d". `top_type` is the top
  // module's qualified type, `method` the graph's method ("forward").
  std::string module_hierarchy(std::string_view top_type, std::string_view method) const;

  // --- position
  // Unlinks this node from its block and links it before/after `other` (in any block).
  void move_before(Node* other);
  void move_after(Node* other);
  // Whether this node comes after `other`; both must be in the same block.
  bool is_after(const Node* other) const;
  // Unlinks and frees this node: it must have no used outputs; its inputs are released and
  // its blocks destroyed.
  void destroy();

 private:
  friend class Graph;
  friend class Block;
  friend class Value;
  explicit Node(Graph* graph, std::string kind) : graph_(graph), kind_(std::move(kind)) {
    origins_.emplace_back();
  }
  void unlink();
  void link_after(Node* prev);
  void drop_use(std::size_t index);

  Graph* graph_;
  std::string kind_;
  std::string overload_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<Block*> blocks_;
  std::map<std::string, pickle::Value, std::less<>> attrs_;
  std::vector<NodeOrigin> origins_;
  Block* owning_block_ = nullptr;
  Node* prev_ = nullptr;
  Node* next_ = nullptr;
  bool destroyed_ = false;
};

// A list of nodes between a parameter node (whose outputs are the block's inputs) and a
// return node (whose inputs are the block's outputs).
class Block {
 public:
  Node* param_node() const { return param_; }
  Node* return_node() const { return return_; }
  Node* owning_node() const { return owning_node_; }
  const std::vector<Value*>& inputs() const { return param_->outputs(); }
  const std::vector<Value*>& outputs() const { return return_->inputs(); }
  Value* add_input(Type type = "Any") { return param_->add_output(std::move(type)); }
  void add_output(Value* value) { return_->add_input(value); }

  // Nodes in order, excluding the parameter and return sentinels.
  Node* first() const { return param_->next_ == return_ ? nullptr : param_->next_; }
  std::vector<Node*> nodes() const;
  bool empty() const { return param_->next_ == return_; }
  // Appends `node` (freshly created, unlinked) at the end / the front of this block.
  Node* append(Node* node);
  Node* prepend(Node* node);

 private:
  friend class Graph;
  friend class Node;
  Node* param_ = nullptr;
  Node* return_ = nullptr;
  Node* owning_node_ = nullptr;
};

class Graph {
 public:
  Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Block* block() const { return block_; }
  const std::vector<Value*>& inputs() const { return block_->inputs(); }
  const std::vector<Value*>& outputs() const { return block_->outputs(); }

  // A new, unlinked node of `kind` with `num_outputs` outputs of type Any. Link it with
  // Block::append or Node::move_before/after.
  Node* create(std::string kind, const std::vector<Value*>& inputs = {},
               std::size_t num_outputs = 1);
  // A new unlinked `prim::Constant[value=...]` node with one output typed from the value.
  Node* create_constant(pickle::Value value);
  // A new block owned by `owner` (used by Node::add_block).
  Block* create_block(Node* owner);

  // Number of live (linked) nodes in all blocks, sentinels excluded.
  std::size_t node_count() const;

  // A deep copy: same nodes, attributes, types, names and debug info.
  std::unique_ptr<Graph> clone() const;

 private:
  friend class Node;
  Value* create_value(Node* node, std::size_t offset, Type type);

  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::size_t next_unique_ = 0;
  Block* block_ = nullptr;
};

// The type PyTorch gives a constant of this value ("int", "float", "str", "bool",
// "NoneType", "Tensor", "int[]", "(int, int)", ...).
Type type_of_constant(const pickle::Value& value);

// Calls `fn(node)` on every node of `block` and its nested blocks, depth first, in order.
// `fn` may change the node but must not destroy or move nodes.
template <typename Fn>
void for_each_node(Block* block, Fn&& fn) {
  for (Node* node = block->first(); node != nullptr; node = node->next()) {
    if (node->is_return()) break;
    fn(node);
    for (Block* inner : node->blocks()) for_each_node(inner, fn);
  }
}

}  // namespace symbolite::compiler
