#include "symbolite/compiler/lifter.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "symbolite/archive/pickle_record.h"
#include "symbolite/compiler/class_table.h"
#include "symbolite/compiler/constant_placement.h"
#include "symbolite/compiler/operator_types.h"
#include "symbolite/mobile/bytecode_verifier.h"
#include "symbolite/mobile/opcode.h"
#include "symbolite/ops/schema/necessary_args.h"
#include "symbolite/ops/schema/schema_table.h"
#include "symbolite/support/error.h"

namespace symbolite::compiler {
namespace {

using mobile::OpCode;

// Control flow nests a few levels in real models; hostile bytecode could nest without end.
constexpr int kMaxBlockDepth = 256;

// What a constant-table entry turned out to be.
enum class ConstantRole {
  kNode,        // a prim::Constant node of the graph
  kLoopZero,    // the fresh 0 a loop's trip counter starts from (the emitter adds it again)
  kMethodName,  // the method name of an INTERFACE_CALL (the emitter adds it again)
};

struct ConstantSlot {
  ConstantRole role = ConstantRole::kNode;
  Node* node = nullptr;   // created on first use
  std::size_t loads = 0;  // LOADC instructions reading it
  Node* loop = nullptr;   // the loop whose counter it started, when a LOOP consumed it
  Node* call = nullptr;   // the interface call naming it
};

struct PendingDefault {
  Node* node;
  pickle::Value value;
};

class FunctionLifter {
 public:
  FunctionLifter(const mobile::BytecodeFunction& fn, const ClassTable& classes,
                 const debuginfo::DebugTable* debug,
                 const std::vector<debuginfo::DebugHandle>* handles)
      : fn_(fn),
        classes_(classes),
        debug_(debug),
        handles_(handles),
        graph_(std::make_unique<Graph>()),
        constants_(fn.constants.size()) {}

  Function lift() {
    // Sized by the registers the code uses (a file's register_size is only a claim); operands
    // past the declared size are still refused (reg()).
    registers_.assign(
        std::min(static_cast<std::size_t>(std::max<std::int64_t>(fn_.register_size, 0)),
                 mobile::registers_used(fn_.instructions)) +
            1,
        nullptr);
    mark_converted_method_names();
    Block* top = graph_->block();
    for (const auto& argument : fn_.arguments) {
      Value* input = top->add_input(argument.type.empty() ? "Any" : argument.type);
      input->set_debug_name(argument.name);
      push(input);
    }
    lift_range(top, 0, fn_.instructions.size(), 0);
    finish_constants();
    Function out;
    out.qualified_name = fn_.qualified_name;
    out.graph = std::move(graph_);
    out.arguments = fn_.arguments;
    out.returns = fn_.returns;
    return out;
  }

 private:
  [[noreturn]] void fail(std::size_t pc, const std::string& what) const {
    throw Error(
        ErrorKind::kModel,
        fmt::format(
            "{}: instruction {} ({}): {}", fn_.qualified_name, pc,
            pc < fn_.instructions.size() ? mobile::opcode_name(fn_.instructions[pc].op) : "end",
            what));
  }

  // PyTorch appends the method names of INTERFACE_CALLs it converted from CALLs after every
  // other constant, one per call, in instruction order (export_module's generateCodeTable).
  void mark_converted_method_names() {
    std::vector<std::size_t> calls;
    for (const auto& ins : fn_.instructions) {
      if (ins.op == OpCode::kInterfaceCall) calls.push_back(static_cast<std::size_t>(ins.x));
    }
    std::size_t first = constants_.size() - std::min(calls.size(), constants_.size());
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (calls[i] != first + i) return;
    }
    for (std::size_t index : calls) constants_[index].role = ConstantRole::kMethodName;
    converted_calls_ = !calls.empty();
  }

  NodeOrigin origin_at(std::size_t pc) const {
    if (debug_ == nullptr || handles_ == nullptr || pc >= handles_->size()) return {};
    const debuginfo::DebugInfo* info = debug_->find((*handles_)[pc]);
    if (info == nullptr) return {};
    return NodeOrigin{info->range, info->call_stack};
  }

  // `load_pc`: the LOAD/MOVE/LOADC that pushed the value, whose debug row names the node
  // consuming it (for a block's outputs: the block's return node).
  void push(Value* value, std::optional<std::size_t> load_pc = std::nullopt) {
    stack_.push_back(value);
    stack_load_pc_.push_back(load_pc);
  }

  void truncate(std::size_t size) {
    stack_.resize(size);
    stack_load_pc_.resize(size);
  }

  Value* pop(std::size_t pc) {
    if (stack_.size() <= floor_) fail(pc, "stack underflow");
    Value* v = stack_.back();
    truncate(stack_.size() - 1);
    return v;
  }

  std::vector<Value*> pop_n(std::size_t pc, std::size_t n) {
    if (stack_.size() < floor_ + n)
      fail(pc, fmt::format("needs {} values, the stack holds {}", n, stack_.size() - floor_));
    std::vector<Value*> out(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
    truncate(stack_.size() - n);
    return out;
  }

  Value*& reg(std::size_t pc, std::int32_t x) {
    if (x < 0 || static_cast<std::size_t>(x) >= registers_.size()) {
      fail(pc, fmt::format("register {} outside 1..{}", x, registers_.size() - 1));
    }
    return registers_[static_cast<std::size_t>(x)];
  }

  const std::string& type_at(std::size_t pc, std::int32_t x) const {
    if (x < 0 || static_cast<std::size_t>(x) >= fn_.types.size())
      fail(pc, fmt::format("type {} out of range", x));
    return fn_.types[static_cast<std::size_t>(x)];
  }

  Node* constant_node(std::size_t index) {
    ConstantSlot& slot = constants_[index];
    if (slot.node == nullptr) {
      slot.node = graph_->create_constant(fn_.constants[index]);
      constant_index_[slot.node] = index;
    }
    return slot.node;
  }

  // Appends `node` to `block` with the debug info of instruction `pc`, pushes its outputs.
  Node* emit(Block* block, Node* node, std::size_t pc) {
    block->append(node);
    node->set_origin(origin_at(pc));
    order_[node] = next_order_++;
    for (Value* out : node->outputs()) push(out);
    return node;
  }

  Node* simple(Block* block, std::size_t pc, std::string kind, std::size_t inputs,
               std::size_t outputs, const Type& type = "Any") {
    Node* node = graph_->create(std::move(kind), pop_n(pc, inputs), outputs);
    for (Value* out : node->outputs()) out->set_type(type);
    return emit(block, node, pc);
  }

  void lift_operator(Block* block, std::size_t pc, const mobile::Instruction& ins) {
    if (ins.x < 0 || static_cast<std::size_t>(ins.x) >= fn_.operators.size()) {
      fail(pc, fmt::format("operator {} out of range", ins.x));
    }
    const auto& ref = fn_.operators[static_cast<std::size_t>(ins.x)];
    const ops::FunctionSchema* schema = ops::find_schema(ref.full_name());
    std::size_t count = 0;
    if (ins.op == OpCode::kOpN) {
      count = static_cast<std::size_t>(std::max(ins.n, 0));
    } else if (ref.num_specified_args && *ref.num_specified_args >= 0) {
      count = static_cast<std::size_t>(*ref.num_specified_args);
    } else if (schema != nullptr) {
      count = schema->arguments.size();
    } else {
      throw Error(
          ErrorKind::kUnsupported,
          fmt::format("{}: instruction {}: operator {} has no argument count in the file and no "
                      "PyTorch 1.13 schema",
                      fn_.qualified_name, pc, ref.full_name()));
    }
    std::size_t outputs = schema != nullptr ? schema->returns.size() : 1;
    if (schema != nullptr && schema->is_varret) outputs = varret_count(pc);
    Node* node = graph_->create(ref.name, pop_n(pc, count), outputs);
    node->set_overload(ref.overload);
    if (schema != nullptr) {
      for (std::size_t i = 0; i < outputs && i < schema->returns.size(); ++i) {
        node->output(i)->set_type(concrete_type(schema->returns[i].type));
      }
      if (ins.op == OpCode::kOp) {
        for (std::size_t i = count; i < schema->arguments.size(); ++i) {
          const auto& def = schema->arguments[i].default_value;
          if (!def) {
            fail(pc, fmt::format("{} is called with {} arguments, but argument '{}' has no default",
                                 ref.full_name(), count, schema->arguments[i].name));
          }
          defaults_.push_back(PendingDefault{node, *def});
        }
      }
    }
    emit(block, node, pc);
  }

  // An operator with a variable number of results (prim::TupleUnpack): as many as the
  // instruction after it stores.
  std::size_t varret_count(std::size_t pc) const {
    if (pc + 1 < fn_.instructions.size() && fn_.instructions[pc + 1].op == OpCode::kStoreN) {
      return static_cast<std::size_t>(std::max(fn_.instructions[pc + 1].n, 0));
    }
    return 1;
  }

  void lift_if(Block* block, std::size_t pc, std::int32_t x, std::size_t end, int depth) {
    Value* cond = pop(pc);
    // TorchScript's conditions are bools (aten::Bool converts anything else first); a file
    // that branches on a Device or a Tensor is not code PyTorch wrote (lifter fuzz finding).
    if (cond->type() != "bool" && cond->type() != "Any") {
      fail(pc, fmt::format("JF's condition is a {}, not a bool", cond->type()));
    }
    if (x < 2) fail(pc, "JF does not jump forward over a then-block");
    std::size_t else_start = pc + static_cast<std::size_t>(x);
    std::size_t jmp = else_start - 1;
    if (else_start > end || fn_.instructions[jmp].op != OpCode::kJmp ||
        fn_.instructions[jmp].x < 1) {
      fail(pc,
           "JF is not closed by a forward JMP before its target: not an if/else as PyTorch emits "
           "it");
    }
    std::size_t if_end = jmp + static_cast<std::size_t>(fn_.instructions[jmp].x);
    if (if_end > end) fail(jmp, "JMP leaves the enclosing block");

    Node* node = graph_->create("prim::If", {cond}, 0);
    emit(block, node, pc);
    Block* then_block = node->add_block();
    Block* else_block = node->add_block();
    std::vector<Value*> then_out = lift_block(then_block, pc + 1, jmp, depth);
    std::vector<Value*> else_out = lift_block(else_block, else_start, if_end, depth);
    if (then_out.size() != else_out.size()) {
      fail(pc, fmt::format("then-block yields {} values, else-block {}", then_out.size(),
                           else_out.size()));
    }
    for (std::size_t i = 0; i < then_out.size(); ++i) {
      then_block->add_output(then_out[i]);
      else_block->add_output(else_out[i]);
      Type type = then_out[i]->type() == else_out[i]->type() ? then_out[i]->type() : "Any";
      push(node->add_output(type));
    }
  }

  void lift_loop(Block* block, std::size_t pc, const mobile::Instruction& ins, std::size_t end,
                 int depth) {
    if (ins.n < 2) fail(pc, "LOOP needs at least the trip count and the condition");
    std::size_t n = static_cast<std::size_t>(ins.n);
    std::vector<Value*> inputs = pop_n(pc, n);
    Value* counter = pop(pc);
    std::size_t exit = pc + static_cast<std::size_t>(std::max(ins.x, 0));
    if (ins.x < 2 || exit > end || fn_.instructions[exit - 1].op != OpCode::kJmp ||
        static_cast<std::int64_t>(exit - 1) + fn_.instructions[exit - 1].x !=
            static_cast<std::int64_t>(pc)) {
      fail(pc, "LOOP is not closed by a JMP back to it: not a loop as PyTorch emits it");
    }
    Node* node = graph_->create("prim::Loop", inputs, 0);
    emit(block, node, pc);
    auto counter_index = constant_index_.find(counter->node());
    if (counter_index != constant_index_.end())
      constants_[counter_index->second].loop = node;
    else
      fail(pc, "the loop's trip counter is not a constant");

    Block* body = node->add_block();
    std::size_t floor = stack_.size();
    Value* i = body->add_input("int");
    push(i);
    for (std::size_t k = 2; k < n; ++k) push(body->add_input(inputs[k]->type()));
    std::vector<Value*> out = lift_block(body, pc + 1, exit - 1, depth, floor);
    if (out.size() != n - 1) {
      fail(pc, fmt::format("loop body yields {} values, expected the condition and {} carried",
                           out.size(), n - 2));
    }
    for (Value* v : out) body->add_output(v);
    for (std::size_t k = 2; k < n; ++k) push(node->add_output(inputs[k]->type()));
  }

  // Lifts [begin, end) into `block`; returns the values it leaves on the stack above `floor`
  // (the stack height at entry unless given).
  std::vector<Value*> lift_block(Block* block, std::size_t begin, std::size_t end, int depth,
                                 std::optional<std::size_t> floor = std::nullopt) {
    std::size_t base = floor.value_or(stack_.size());
    std::size_t saved_floor = floor_;
    floor_ = base;
    lift_range(block, begin, end, depth + 1);
    floor_ = saved_floor;
    std::vector<Value*> out(stack_.begin() + static_cast<std::ptrdiff_t>(base), stack_.end());
    for (std::size_t i = stack_.size(); i > base; --i) {
      if (stack_load_pc_[i - 1]) {
        block->return_node()->set_origin(origin_at(*stack_load_pc_[i - 1]));
        break;
      }
    }
    truncate(base);
    order_[block->return_node()] = next_order_++;
    return out;
  }

  void lift_range(Block* block, std::size_t begin, std::size_t end, int depth) {
    if (depth > kMaxBlockDepth) {
      throw Error(ErrorKind::kLimit, fmt::format("{}: control flow nests deeper than {} blocks",
                                                 fn_.qualified_name, kMaxBlockDepth));
    }
    std::size_t pc = begin;
    while (pc < end) {
      const auto ins = fn_.instructions[pc];
      switch (ins.op) {
        case OpCode::kOp:
        case OpCode::kOpN:
          lift_operator(block, pc, ins);
          break;
        case OpCode::kLoad:
          push(read_register(pc, ins.x), pc);
          break;
        case OpCode::kMove:
          push(read_register(pc, ins.x), pc);
          reg(pc, ins.x) = nullptr;
          break;
        case OpCode::kStore:
          store(pc, ins.x, pop(pc));
          break;
        case OpCode::kStoreN: {
          if (ins.n < 0) fail(pc, "negative count");
          auto values = pop_n(pc, static_cast<std::size_t>(ins.n));
          for (std::size_t i = 0; i < values.size(); ++i)
            store(pc, ins.x + static_cast<std::int32_t>(i), values[i]);
          break;
        }
        case OpCode::kDrop:
          pop(pc);
          break;
        case OpCode::kDropR:
          reg(pc, ins.x) = nullptr;
          break;
        case OpCode::kLoadC: {
          if (ins.x < 0 || static_cast<std::size_t>(ins.x) >= constants_.size()) {
            fail(pc, fmt::format("constant {} out of range", ins.x));
          }
          ++constants_[static_cast<std::size_t>(ins.x)].loads;
          push(constant_node(static_cast<std::size_t>(ins.x))->output(), pc);
          break;
        }
        case OpCode::kGetAttr: {
          Value* object = pop(pc);
          Node* node = graph_->create("prim::GetAttr", {object}, 1);
          node->set_attr("slot", pickle::Value::integer(ins.x));
          if (auto attribute = classes_.attribute(object->type(),
                                                  static_cast<std::size_t>(std::max(ins.x, 0)))) {
            node->set_attr("name", pickle::Value::string(attribute->name));
            node->output()->set_type(attribute->type);
          }
          emit(block, node, pc);
          break;
        }
        case OpCode::kSetAttr: {
          auto values = pop_n(pc, 2);
          Node* node = graph_->create("prim::SetAttr", values, 0);
          node->set_attr("slot", pickle::Value::integer(ins.x));
          if (auto attribute = classes_.attribute(values[0]->type(),
                                                  static_cast<std::size_t>(std::max(ins.x, 0)))) {
            node->set_attr("name", pickle::Value::string(attribute->name));
          }
          emit(block, node, pc);
          break;
        }
        case OpCode::kJf:
          lift_if(block, pc, ins.x, end, depth);
          pc = next_pc_after_if(pc, ins.x);
          continue;
        case OpCode::kLoop:
          lift_loop(block, pc, ins, end, depth);
          pc += static_cast<std::size_t>(ins.x);
          continue;
        case OpCode::kJmp:
          fail(pc, "JMP outside an if/else or loop as PyTorch emits them");
        case OpCode::kRet: {
          if (block != graph_->block() || pc + 1 != end)
            fail(pc, "RET before the end of the function");
          auto values = pop_n(pc, stack_.size() - floor_);
          for (Value* v : values) block->add_output(v);
          block->return_node()->set_origin(origin_at(pc));
          order_[block->return_node()] = next_order_++;
          break;
        }
        case OpCode::kWarn: {
          Node* node = simple(block, pc, "aten::warn", 2, 0);
          if (ins.x != -1) node->set_attr("warn_id", pickle::Value::integer(ins.x));
          break;
        }
        case OpCode::kListConstruct:
        case OpCode::kDictConstruct: {
          const std::string& type = type_at(pc, ins.x);
          Node* node = simple(
              block, pc,
              ins.op == OpCode::kListConstruct ? "prim::ListConstruct" : "prim::DictConstruct",
              static_cast<std::size_t>(std::max(ins.n, 0)), 1, type);
          node->set_attr("type", pickle::Value::string(type));
          break;
        }
        case OpCode::kNamedTupleConstruct: {
          const std::string& type = type_at(pc, ins.x);
          Node* node = simple(block, pc, "prim::TupleConstruct",
                              static_cast<std::size_t>(std::max(ins.n, 0)), 1, type);
          node->set_attr("type", pickle::Value::string(type));
          break;
        }
        case OpCode::kListUnpack:
          simple(block, pc, "prim::ListUnpack", 1, static_cast<std::size_t>(std::max(ins.x, 0)));
          break;
        case OpCode::kTupleConstruct: {
          Node* node = simple(block, pc, "prim::TupleConstruct",
                              static_cast<std::size_t>(std::max(ins.x, 0)), 1);
          std::string type = "(";
          for (std::size_t i = 0; i < node->inputs().size(); ++i)
            type += (i ? ", " : "") + node->input(i)->type();
          node->output()->set_type(type + ")");
          break;
        }
        case OpCode::kTupleSlice: {
          Node* node = simple(block, pc, "prim::TupleSlice", 1, 1);
          node->set_attr("beg", pickle::Value::integer(ins.x));
          node->set_attr("end", pickle::Value::integer(static_cast<std::int64_t>(ins.x) + ins.n));
          break;
        }
        case OpCode::kTupleIndex:
          simple(block, pc, "prim::TupleIndex", 2, 1);
          break;
        case OpCode::kDictIndex: {
          Node* node = simple(block, pc, "aten::__getitem__", 2, 1);
          node->set_overload("Dict");
          break;
        }
        case OpCode::kCreateObject: {
          const std::string& type = type_at(pc, ins.x);
          Node* node = simple(block, pc, "prim::CreateObject", 0, 1, type);
          node->set_attr("type", pickle::Value::string(type));
          break;
        }
        case OpCode::kIsInstance: {
          pickle::ValueList types;
          for (std::int32_t i = 0; i < ins.n; ++i)
            types.push_back(pickle::Value::string(type_at(pc, ins.x + i)));
          Node* node = simple(block, pc, "prim::isinstance", 1, 1, "bool");
          node->set_attr("types", pickle::Value::list(std::move(types)));
          break;
        }
        case OpCode::kRaiseException:
          simple(block, pc, "prim::RaiseException", 2, 0);
          break;
        case OpCode::kIs:
          simple(block, pc, "aten::__is__", 2, 1, "bool");
          break;
        case OpCode::kIsNot:
          simple(block, pc, "aten::__isnot__", 2, 1, "bool");
          break;
        case OpCode::kNot:
          simple(block, pc, "aten::__not__", 1, 1, "bool");
          break;
        case OpCode::kFormat:
          simple(block, pc, "aten::format", static_cast<std::size_t>(std::max(ins.x, 0)), 1, "str");
          break;
        case OpCode::kDevice:
          simple(block, pc, "prim::device", 1, 1, "Device");
          break;
        case OpCode::kDtype:
          simple(block, pc, "prim::dtype", 1, 1, "int");
          break;
        case OpCode::kDim:
          simple(block, pc, "aten::dim", 1, 1, "int");
          break;
        case OpCode::kIsCuda:
          simple(block, pc, "prim::is_cuda", 1, 1, "bool");
          break;
        case OpCode::kNumToTensor:  // no overload: the instruction, not OP prim::NumToTensor.Scalar
          simple(block, pc, "prim::NumToTensor", 1, 1, "Tensor");
          break;
        case OpCode::kToList:
          simple(block, pc, "prim::tolist", 3, 1);
          break;
        case OpCode::kUninitialized:
          simple(block, pc, "prim::Uninitialized", 0, 1);
          break;
        case OpCode::kInterfaceCall: {
          if (ins.x < 0 || static_cast<std::size_t>(ins.x) >= constants_.size() ||
              !fn_.constants[static_cast<std::size_t>(ins.x)].is(pickle::Value::Kind::kString)) {
            fail(pc, "INTERFACE_CALL does not name its method by a string constant");
          }
          Node* node = simple(block, pc, "prim::CallMethod",
                              static_cast<std::size_t>(std::max(ins.n, 0)), 1);
          node->set_attr("name", fn_.constants[static_cast<std::size_t>(ins.x)]);
          if (!converted_calls_) {
            node->set_attr("interface", pickle::Value::boolean(true));
            constants_[static_cast<std::size_t>(ins.x)].role = ConstantRole::kMethodName;
            constants_[static_cast<std::size_t>(ins.x)].call = node;
          }
          break;
        }
        case OpCode::kCall:
        case OpCode::kEnter:
        case OpCode::kExit:
          throw Error(
              ErrorKind::kUnsupported,
              fmt::format("{}: instruction {}: {} cannot be lifted (PyTorch 1.13 never writes it "
                          "into a lite-interpreter model)",
                          fn_.qualified_name, pc, mobile::opcode_name(ins.op)));
      }
      ++pc;
    }
  }

  std::size_t next_pc_after_if(std::size_t pc, std::int32_t x) const {
    std::size_t jmp = pc + static_cast<std::size_t>(x) - 1;
    return jmp + static_cast<std::size_t>(fn_.instructions[jmp].x);
  }

  Value* read_register(std::size_t pc, std::int32_t x) {
    Value* v = reg(pc, x);
    if (v == nullptr) fail(pc, fmt::format("register {} is read before it is written", x));
    return v;
  }

  void store(std::size_t pc, std::int32_t x, Value* value) {
    reg(pc, x) = value;
    // The graph's and a loop body's parameters are stored by the instruction that takes them.
    if (value->node()->is_param() && !param_origin_set_.contains(value->node())) {
      value->node()->set_origin(origin_at(pc));
      param_origin_set_.insert(value->node());
    }
  }

  // Resolves the constants: table entries become nodes (or loop counters / method names the
  // emitter regenerates), schema defaults the bytecode left out become inputs, and every
  // constant node is placed so that the emitter numbers them as the file did.
  void finish_constants() {
    for (auto& slot : constants_) {
      if (slot.loop != nullptr && slot.loads == 1 && slot.role == ConstantRole::kNode)
        slot.role = ConstantRole::kLoopZero;
    }
    for (auto& pending : defaults_)
      pending.node->add_input(default_constant(pending.value, pending.node));
    std::vector<PlacedConstant> placed;
    for (std::size_t i = 0; i < constants_.size(); ++i) {
      ConstantSlot& slot = constants_[i];
      switch (slot.role) {
        case ConstantRole::kNode:
          placed.push_back(PlacedConstant{constant_node(i), nullptr});
          break;
        case ConstantRole::kLoopZero:
          if (slot.node != nullptr && slot.node->outputs()[0]->uses().empty()) slot.node = nullptr;
          placed.push_back(PlacedConstant{nullptr, slot.loop});
          break;
        case ConstantRole::kMethodName:
          if (slot.call != nullptr) placed.push_back(PlacedConstant{nullptr, slot.call});
          break;
      }
    }
    place_constants(*graph_, placed, order_);
    for (Node* extra : extra_constants_) extra->move_before(extra_anchor_.at(extra));
  }

  // A constant for a schema default: an equal table constant if there is one (preferring
  // entries no instruction loads: PyTorch put the default's constant node in the table but
  // did not load it), else a new constant.
  Value* default_constant(const pickle::Value& value, Node* user) {
    std::optional<std::size_t> loaded_match;
    for (std::size_t i = 0; i < constants_.size(); ++i) {
      if (constants_[i].role != ConstantRole::kNode) continue;
      if (!ops::ivalue_equal(fn_.constants[i], value) ||
          type_of_constant(fn_.constants[i]) != type_of_constant(value))
        continue;
      if (constants_[i].loads == 0) return constant_node(i)->output();
      if (!loaded_match) loaded_match = i;
    }
    if (loaded_match) return constant_node(*loaded_match)->output();
    Node* node = graph_->create_constant(value);
    user->owning_block()->append(node);  // linked now, placed before `user` at the end
    extra_constants_.push_back(node);
    extra_anchor_[node] = user;
    return node->output();
  }

  const mobile::BytecodeFunction& fn_;
  const ClassTable& classes_;
  const debuginfo::DebugTable* debug_;
  const std::vector<debuginfo::DebugHandle>* handles_;
  std::unique_ptr<Graph> graph_;
  std::vector<Value*> registers_;
  std::vector<Value*> stack_;
  std::vector<std::optional<std::size_t>> stack_load_pc_;
  std::size_t floor_ = 0;
  std::vector<ConstantSlot> constants_;
  std::unordered_map<const Node*, std::size_t> constant_index_;
  std::vector<PendingDefault> defaults_;
  std::vector<Node*> extra_constants_;
  std::unordered_map<Node*, Node*> extra_anchor_;
  std::set<const Node*> param_origin_set_;
  NodeOrder order_;
  std::size_t next_order_ = 0;
  bool converted_calls_ = false;
};

}  // namespace

Program lift_bytecode(const mobile::Bytecode& bytecode, const ClassTable& classes,
                      const debuginfo::DebugTable* debug, const debuginfo::HandleTable* handles,
                      std::string top_type) {
  Program program;
  program.bytecode_version = bytecode.version;
  program.top_type = std::move(top_type);
  for (const auto& fn : bytecode.functions) {
    const std::vector<debuginfo::DebugHandle>* function_handles = nullptr;
    if (handles != nullptr) {
      for (const auto& f : handles->functions()) {
        if (f.function == fn.qualified_name) function_handles = &f.handles;
      }
    }
    program.functions.push_back(FunctionLifter(fn, classes, debug, function_handles).lift());
  }
  return program;
}

Program lift(const mobile::ModelInfo& model) {
  if (!model.bytecode) {
    throw Error(
        ErrorKind::kUnsupported,
        fmt::format("{}: no bytecode.pkl: a full TorchScript archive (.pt) cannot be lifted yet",
                    model.archive.display_name()));
  }
  pickle::Value root = archive::decode_pickle_record(model.archive, "data.pkl",
                                                     [](const pickle::Value& v) { return v; });
  try {
    ClassTable classes = ClassTable::from_objects(root);
    Program program = lift_bytecode(
        *model.bytecode, classes, model.debug.has_callstack_map ? &model.debug.table : nullptr,
        model.debug.has_handle_table ? &model.debug.handles : nullptr, model.top_type());
    program.root_object = std::move(root);
    return program;
  } catch (Error& e) {
    e.add_context(model.archive.display_name());
    throw;
  }
}

}  // namespace symbolite::compiler
