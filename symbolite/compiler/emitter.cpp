#include "symbolite/compiler/emitter.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "symbolite/compiler/operator_call.h"
#include "symbolite/support/error.h"

namespace symbolite::compiler {
namespace {

using debuginfo::DebugInfo;
using mobile::OpCode;

// An instruction operand; a function too large for PyTorch's 32-bit operands cannot be written.
std::int32_t operand(std::int64_t value) {
  if (value < INT32_MIN || value > INT32_MAX) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("instruction operand {} does not fit in 32 bits", value));
  }
  return static_cast<std::int32_t>(value);
}

// ---------------------------------------------------------------- preprocessing
// PyTorch emits from a copy of the graph with explicit prim::Drop nodes; they decide which
// values are dropped where, and (as nodes) which values can stay on the stack.

Node* make_drop(Graph& graph, const std::vector<Value*>& values) {
  return graph.create("prim::Drop", values, 0);
}

// A prim::Drop after every node with unused outputs, and first in a block whose inputs are
// unused. Constants are never dropped.
void drop_unused(Graph& graph, Block* block) {
  auto unused = [](const std::vector<Value*>& values) {
    std::vector<Value*> out;
    for (Value* v : values) {
      if (v->uses().empty() && v->node()->kind() != "prim::Constant") out.push_back(v);
    }
    return out;
  };
  if (auto values = unused(block->inputs()); !values.empty())
    block->prepend(make_drop(graph, values));
  for (Node* node : block->nodes()) {
    if (auto values = unused(node->outputs()); !values.empty())
      make_drop(graph, values)->move_after(node);
    for (Block* inner : node->blocks()) drop_unused(graph, inner);
  }
}

// A value whose last use is nested inside an if or loop is dropped right after that if or
// loop, in the block that defines it.
class LastUses {
 public:
  explicit LastUses(Graph& graph) : graph_(graph) { scan_block(graph.block()); }

 private:
  void scan_block(Block* block) {
    scan_node(block->return_node());
    auto nodes = block->nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) scan_node(*it);
  }
  void scan_node(Node* node) {
    for (Block* inner : node->blocks()) scan_block(inner);
    for (std::size_t i = node->inputs().size(); i > 0; --i) scan_use(node, node->input(i - 1));
  }
  void scan_use(Node* user, Value* value) {
    if (!seen_.insert(value).second) return;
    Block* home = value->node()->owning_block();
    Node* same_depth = user;
    while (same_depth != nullptr && same_depth->owning_block() != home) {
      same_depth = same_depth->owning_block()->owning_node();
    }
    if (same_depth == nullptr || same_depth == user) return;
    // PyTorch makes the drop node before it skips constants, so a constant used inside an
    // if or loop leaves an empty drop after it — which keeps the if's or loop's result from
    // being emitted inline. Reproduced for identical bytecode.
    Node*& drop = drop_after_[same_depth];
    if (drop == nullptr) {
      drop = make_drop(graph_, {});
      drop->move_after(same_depth);
    }
    if (value->node()->kind() == "prim::Constant") return;
    const auto& inputs = drop->inputs();
    if (std::find(inputs.begin(), inputs.end(), value) == inputs.end()) drop->add_input(value);
  }

  Graph& graph_;
  std::unordered_set<const Value*> seen_;
  std::unordered_map<const Node*, Node*> drop_after_;
};

// PyTorch's CanEmitInline: a single-use, single-output value produced by the node right before
// its user (constants aside) stays on the stack instead of going through a register.
class InlineAnalysis {
 public:
  explicit InlineAnalysis(Graph& graph) { scan_block(graph.block()); }
  bool is_inline(const Node* node) const { return inline_.contains(node); }

 private:
  static bool can_inline(const Value* v) {
    const std::string& kind = v->node()->kind();
    return kind != "prim::Param" && v->uses().size() == 1 && v->node()->outputs().size() == 1;
  }
  static Node* previous_non_constant(Node* node) {
    do {
      node = node->prev();
    } while (node != nullptr && node->kind() == "prim::Constant");
    return node;
  }
  Node* scan_value(Node* block_point, Value* v) {
    if (v->node() == block_point && can_inline(v)) {
      block_point = scan_node(v->node());
      inline_.insert(v->node());
    }
    return block_point;
  }
  Node* scan_node(Node* node) {
    if (inline_.contains(node)) return nullptr;
    for (Block* inner : node->blocks()) scan_block(inner);
    Node* block_point = previous_non_constant(node);
    for (std::size_t i = node->inputs().size(); i > 0; --i) {
      block_point = scan_value(block_point, node->input(i - 1));
    }
    return block_point;
  }
  void scan_block(Block* block) {
    scan_node(block->return_node());
    auto nodes = block->nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) scan_node(*it);
  }

  std::unordered_set<const Node*> inline_;
};

// ---------------------------------------------------------------- emission

// Operators that the lite interpreter runs as instructions of their own (bytecode v8).
const std::map<std::string, OpCode, std::less<>>& promoted_operators() {
  static const std::map<std::string, OpCode, std::less<>> table = {
      {"prim::TupleIndex", OpCode::kTupleIndex},
      {"prim::RaiseException", OpCode::kRaiseException},
      {"aten::__is__", OpCode::kIs},
      {"aten::__isnot__", OpCode::kIsNot},
      {"aten::__not__", OpCode::kNot},
      {"prim::device", OpCode::kDevice},
      {"prim::dtype", OpCode::kDtype},
      {"aten::dim", OpCode::kDim},
      {"prim::is_cuda", OpCode::kIsCuda},
      {"prim::Uninitialized", OpCode::kUninitialized},
      {"prim::tolist", OpCode::kToList},
  };
  return table;
}

class FunctionEmitter {
 public:
  explicit FunctionEmitter(const Function& function)
      : function_(function), graph_(function.graph->clone()) {
    drop_unused(*graph_, graph_->block());
    LastUses last_uses(*graph_);
    inline_ = std::make_unique<InlineAnalysis>(*graph_);
    count_specified_args(graph_->block());
  }

  EmittedFunction run() {
    current_ = graph_->block()->return_node();
    emit_block(graph_->block());
    current_ = graph_->block()->return_node();
    insert(OpCode::kRet);
    resolve_method_names();
    EmittedFunction out;
    auto& code = out.code;
    code.qualified_name = function_.qualified_name;
    code.instructions = std::move(instructions_);
    for (const auto& op : operators_) {
      mobile::OperatorRef ref;
      ref.name = op.name;
      ref.overload = op.overload;
      auto it = num_specified_.find(op.full_name);
      ref.num_specified_args =
          it == num_specified_.end() ? -1 : static_cast<std::int64_t>(it->second);
      code.operators.push_back(std::move(ref));
    }
    code.constants = std::move(constants_);
    for (auto& name : method_names_) code.constants.push_back(std::move(name));
    code.types = std::move(types_);
    code.register_size = register_size_;
    code.arguments = function_.arguments;
    code.returns = function_.returns;
    out.instruction_debug = std::move(debug_);
    return out;
  }

 private:
  struct OperatorEntry {
    std::string name, overload, full_name;
  };

  [[noreturn]] void fail(const Node* node, const std::string& what) const {
    throw Error(ErrorKind::kUnsupported, fmt::format("{}: node {}: {}", function_.qualified_name,
                                                     node->qualified_kind(), what));
  }

  // The most arguments any call site of each operator needs (PyTorch's num_specified_args).
  void count_specified_args(Block* block) {
    for (Node* node = block->first(); node != nullptr && !node->is_return(); node = node->next()) {
      if (is_operator(node)) {
        if (auto call = operator_call(*node); call && !call->vararg) {
          auto [it, fresh] = num_specified_.try_emplace(node->qualified_kind(), call->needed);
          if (!fresh) it->second = std::max(it->second, call->needed);
          num_out_[node->qualified_kind()] = call->out;
        }
      }
      for (Block* inner : node->blocks()) count_specified_args(inner);
    }
  }

  static bool is_operator(const Node* node) {
    static const std::unordered_set<std::string> special = {
        "prim::Constant",       "prim::If",         "prim::Loop",          "prim::Drop",
        "prim::GetAttr",        "prim::SetAttr",    "prim::ListConstruct", "prim::DictConstruct",
        "prim::TupleConstruct", "prim::ListUnpack", "prim::TupleSlice",    "prim::CreateObject",
        "prim::isinstance",     "prim::CallMethod", "aten::warn",          "aten::format",
        "prim::Param",          "prim::Return"};
    if (special.contains(node->kind()) || promoted_operators().contains(node->kind())) return false;
    return !is_dict_index(node) && !is_num_to_tensor(node);
  }

  // NUM_TO_TENSOR's node; `OP prim::NumToTensor.Scalar` (scripted models) keeps its overload.
  static bool is_num_to_tensor(const Node* node) {
    return node->kind() == "prim::NumToTensor" && node->overload().empty();
  }

  static bool is_dict_index(const Node* node) {
    return node->kind() == "aten::__getitem__" && node->overload().rfind("Dict", 0) == 0;
  }

  void insert(OpCode op, std::int64_t x = 0, std::int64_t n = 0) {
    instructions_.push_back(mobile::Instruction{op, operand(x), operand(n)});
    DebugInfo info;
    info.range = current_->source_range();
    info.node_kind = current_->kind();
    info.call_stack = current_->call_stack();
    debug_.push_back(std::move(info));
  }

  std::int64_t alloc_registers(const std::vector<Value*>& values) {
    std::int64_t first = register_size_ + 1;
    for (Value* v : values) registers_[v] = ++register_size_;
    return first;
  }

  std::int64_t add_constant(pickle::Value value) {
    constants_.push_back(std::move(value));
    return static_cast<std::int64_t>(constants_.size() - 1);
  }

  std::int64_t add_type(const Node* node, const pickle::Value& type) {
    if (!type.is(pickle::Value::Kind::kString)) fail(node, "type attribute is not a string");
    types_.emplace_back(type.as_string());
    return static_cast<std::int64_t>(types_.size() - 1);
  }

  void emit_use(Value* input, bool drop) {
    if (inline_->is_inline(input->node())) {
      emit_node(input->node());
      if (drop) insert(OpCode::kDrop);
      return;
    }
    auto it = registers_.find(input);
    if (it == registers_.end()) {
      throw Error(ErrorKind::kInternal, fmt::format("{}: value %{} used before it is emitted",
                                                    function_.qualified_name, input->unique()));
    }
    bool moved = input->uses().size() == ++use_count_[input];
    OpCode op = input->node()->kind() == "prim::Constant" ? OpCode::kLoadC
                : moved                                   ? OpCode::kMove
                                                          : OpCode::kLoad;
    if (drop) op = OpCode::kDropR;
    insert(op, it->second);
  }

  void load_inputs(const std::vector<Value*>& inputs, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) emit_use(inputs[i], false);
  }
  void load_inputs(const std::vector<Value*>& inputs) { load_inputs(inputs, 0, inputs.size()); }

  void emit_operator(Node* node) {
    const auto& inputs = node->inputs();
    std::string full = node->qualified_kind();
    auto call = operator_call(*node);
    bool vararg = call && call->vararg;
    // Inputs first: operators emitted inline while loading them take table slots first.
    if (vararg) {
      load_inputs(inputs);
      insert(OpCode::kOpN, operator_index(node, full, inputs.size(), true),
             static_cast<std::int64_t>(inputs.size()));
      return;
    }
    std::size_t include = inputs.size();
    if (auto it = num_specified_.find(full); it != num_specified_.end())
      include = std::min(include, it->second);
    std::size_t out = 0;
    if (auto it = num_out_.find(full); it != num_out_.end()) out = it->second;
    load_inputs(inputs, 0, include - std::min(out, include));
    load_inputs(inputs, inputs.size() - std::min(out, inputs.size()), inputs.size());
    insert(OpCode::kOp, operator_index(node, full, inputs.size(), false));
  }

  std::int64_t operator_index(const Node* node, const std::string& full, std::size_t num_inputs,
                              bool vararg) {
    auto key = std::make_pair(full, num_inputs);
    if (!vararg) {
      if (auto it = operator_index_.find(key); it != operator_index_.end()) return it->second;
    }
    auto index = static_cast<std::int64_t>(operators_.size());
    operators_.push_back(OperatorEntry{node->kind(), node->overload(), full});
    if (!vararg) operator_index_[key] = index;
    return index;
  }

  void emit_if(Node* node) {
    load_inputs(node->inputs());
    std::size_t start_if = instructions_.size();
    insert(OpCode::kJf);
    emit_block(node->blocks().at(0));
    insert(OpCode::kJmp);
    std::size_t start_else = instructions_.size();
    instructions_[start_if].x = operand(static_cast<std::int64_t>(start_else - start_if));
    emit_block(node->blocks().at(1));
    instructions_[start_else - 1].x =
        operand(static_cast<std::int64_t>(instructions_.size() - (start_else - 1)));
  }

  void emit_loop(Node* node) {
    insert(OpCode::kLoadC, add_constant(pickle::Value::integer(0)));
    load_inputs(node->inputs());
    std::size_t start = instructions_.size();
    insert(OpCode::kLoop, 0, static_cast<std::int64_t>(node->inputs().size()));
    emit_block(node->blocks().at(0));
    insert(OpCode::kJmp,
           static_cast<std::int64_t>(start) - static_cast<std::int64_t>(instructions_.size()));
    instructions_[start].x = operand(static_cast<std::int64_t>(instructions_.size() - start));
  }

  std::int64_t attribute_slot(const Node* node) const {
    if (!node->has_attr("slot")) fail(node, "attribute access without a slot");
    return node->attr("slot").as_int();
  }

  void emit_node(Node* node) {
    Node* saved = current_;
    current_ = node;
    const std::string& kind = node->kind();
    if (kind == "prim::Drop") {
      for (Value* v : node->inputs()) emit_use(v, true);
    } else if (kind == "prim::Constant") {
      registers_[node->output()] = add_constant(node->attr("value"));
    } else if (kind == "prim::If") {
      emit_if(node);
    } else if (kind == "prim::Loop") {
      emit_loop(node);
    } else if (kind == "prim::GetAttr") {
      load_inputs(node->inputs());
      insert(OpCode::kGetAttr, attribute_slot(node));
    } else if (kind == "prim::SetAttr") {
      load_inputs(node->inputs());
      insert(OpCode::kSetAttr, attribute_slot(node));
    } else if (kind == "prim::ListUnpack") {
      load_inputs(node->inputs());
      insert(OpCode::kListUnpack, static_cast<std::int64_t>(node->outputs().size()));
    } else if (kind == "prim::TupleConstruct") {
      load_inputs(node->inputs());
      auto n = static_cast<std::int64_t>(node->inputs().size());
      if (node->has_attr("type"))
        insert(OpCode::kNamedTupleConstruct, add_type(node, node->attr("type")), n);
      else
        insert(OpCode::kTupleConstruct, n);
    } else if (kind == "prim::ListConstruct" || kind == "prim::DictConstruct") {
      load_inputs(node->inputs());
      insert(kind == "prim::ListConstruct" ? OpCode::kListConstruct : OpCode::kDictConstruct,
             add_type(node, node->attr("type")), static_cast<std::int64_t>(node->inputs().size()));
    } else if (kind == "prim::CreateObject") {
      insert(OpCode::kCreateObject, add_type(node, node->attr("type")));
    } else if (kind == "prim::isinstance") {
      load_inputs(node->inputs());
      const auto& types = node->attr("types").as_sequence();
      auto first = static_cast<std::int64_t>(types_.size());
      for (const auto& t : types) add_type(node, t);
      insert(OpCode::kIsInstance, first, static_cast<std::int64_t>(types.size()));
    } else if (kind == "prim::TupleSlice") {
      load_inputs(node->inputs());
      std::int64_t beg = node->attr("beg").as_int();
      insert(OpCode::kTupleSlice, beg, node->attr("end").as_int() - beg);
    } else if (kind == "prim::CallMethod") {
      load_inputs(node->inputs());
      auto n = static_cast<std::int64_t>(node->inputs().size());
      if (node->has_attr("interface")) {
        insert(OpCode::kInterfaceCall, add_constant(node->attr("name")), n);
      } else {
        // PyTorch emits a CALL and turns it into an INTERFACE_CALL whose method name it
        // appends after all other constants.
        method_names_.push_back(node->attr("name"));
        insert(OpCode::kInterfaceCall, -1 - static_cast<std::int64_t>(method_names_.size() - 1), n);
        pending_method_calls_.push_back(instructions_.size() - 1);
      }
    } else if (kind == "aten::warn") {
      load_inputs(node->inputs());
      insert(OpCode::kWarn, node->has_attr("warn_id") ? node->attr("warn_id").as_int() : -1);
    } else if (kind == "aten::format") {
      load_inputs(node->inputs());
      insert(OpCode::kFormat, static_cast<std::int64_t>(node->inputs().size()));
    } else if (is_dict_index(node)) {
      load_inputs(node->inputs());
      insert(OpCode::kDictIndex);
    } else if (is_num_to_tensor(node)) {
      load_inputs(node->inputs());
      insert(OpCode::kNumToTensor);
    } else if (auto promoted = promoted_operators().find(kind);
               promoted != promoted_operators().end()) {
      load_inputs(node->inputs());
      insert(promoted->second);
    } else {
      emit_operator(node);
    }
    current_ = saved;
  }

  void store_outputs(Node* node) {
    const auto& outputs = node->outputs();
    if (outputs.empty()) return;
    std::int64_t first = alloc_registers(outputs);
    if (outputs.size() == 1)
      insert(OpCode::kStore, first);
    else
      insert(OpCode::kStoreN, first, static_cast<std::int64_t>(outputs.size()));
  }

  void emit_at_block_level(Node* node) {
    Node* saved = current_;
    current_ = node;
    if (node->kind() == "prim::Constant") {
      emit_node(node);
    } else if (node->is_return()) {
      load_inputs(node->inputs());
    } else if (!inline_->is_inline(node)) {
      if (!node->is_param()) emit_node(node);
      store_outputs(node);
    }
    current_ = saved;
  }

  void emit_block(Block* block) {
    emit_at_block_level(block->param_node());
    for (Node* node = block->first(); node != nullptr && !node->is_return(); node = node->next()) {
      emit_at_block_level(node);
    }
    emit_at_block_level(block->return_node());
  }

  void resolve_method_names() {
    for (unsigned long pending_method_call : pending_method_calls_) {
      auto& ins = instructions_[pending_method_call];
      ins.x = operand(static_cast<std::int64_t>(constants_.size()) + (-1 - ins.x));
    }
    pending_method_calls_.clear();
  }

  const Function& function_;
  std::unique_ptr<Graph> graph_;
  std::unique_ptr<InlineAnalysis> inline_;
  Node* current_ = nullptr;
  std::vector<mobile::Instruction> instructions_;
  std::vector<DebugInfo> debug_;
  std::vector<pickle::Value> constants_;
  std::vector<pickle::Value> method_names_;
  std::vector<std::size_t> pending_method_calls_;
  std::vector<std::string> types_;
  std::vector<OperatorEntry> operators_;
  std::map<std::pair<std::string, std::size_t>, std::int64_t> operator_index_;
  std::unordered_map<std::string, std::size_t> num_specified_;
  std::unordered_map<std::string, std::size_t> num_out_;
  std::unordered_map<const Value*, std::int64_t> registers_;
  std::unordered_map<const Value*, std::size_t> use_count_;
  std::int64_t register_size_ = 0;
};

}  // namespace

EmittedFunction emit_function(const Function& function) { return FunctionEmitter(function).run(); }

}  // namespace symbolite::compiler
