// libsymbolite_torch.so: PyTorch 1.13 to_backend backends named "symbolite", "eager" and
// "xnnpack" that run symbolite's delegate programs (symbolite/mobile/delegate_program.h) with
// ATen.
//
// Load it into Python with torch.ops.load_library(path); then
// torch._C._jit_to_backend("symbolite", scripted, {"forward": {}}) lowers a module, and
// _load_for_lite_interpreter runs files lowered by PyTorch or by `symbolite lower`.
//
// preprocess (ahead of time, in the lowering process): inlines each method named in the
// compile spec, gives every node a debug handle through PyTorch's BackendDebugInfoRecorder
// (the generator it passes in), and writes (program text, weights) per method. compile (at
// load) parses and checks each program and finds every operator in PyTorch's dispatcher.
// execute runs the steps through the JIT's operators; a step that fails raises
// c10::BackendRuntimeException carrying its debug handle, which the lite interpreter turns into
// the composed module hierarchy.
#include <torch/csrc/jit/backends/backend.h>
#include <torch/csrc/jit/backends/backend_detail.h>
#include <torch/csrc/jit/backends/backend_exception.h>
#include <torch/csrc/jit/backends/backend_preprocess.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>

#include <ATen/ATen.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "symbolite/mobile/delegate_program.h"

namespace symbolite_torch {
namespace {

using symbolite::mobile::DelegateProgram;
using symbolite::mobile::DelegateValue;

// ---- preprocess: TorchScript graph -> delegate program --------------------------------------

class ProgramBuilder {
 public:
  ProgramBuilder(const torch::jit::Module& module, const std::string& method,
                 const torch::jit::BackendDebugHandleGenerator& generate)
      : module_(module), method_(method) {
    graph_ = module.get_method(method).graph()->copy();
    torch::jit::Inline(*graph_);
    torch::jit::EliminateDeadCode(graph_);
    handles_ = generate(graph_);
  }

  c10::IValue build() {
    auto inputs = graph_->inputs();
    TORCH_CHECK(!inputs.empty(), "symbolite backend: ", method_, " has no self input");
    objects_[inputs[0]] = module_._ivalue();
    for (size_t i = 1; i < inputs.size(); ++i) ids_[inputs[i]] = program_.add_input();
    for (auto* node : graph_->nodes()) add_node(node);
    auto* result = graph_->outputs().at(0);
    if (result->node()->kind() == c10::prim::TupleConstruct) {
      for (auto* v : result->node()->inputs()) program_.outputs.push_back(id_of(v, result->node()));
    } else {
      program_.outputs.push_back(id_of(result, result->node()));
    }
    return c10::ivalue::Tuple::create(
        {c10::IValue(symbolite::mobile::print_delegate_program(program_)), weights_});
  }

 private:
  size_t id_of(torch::jit::Value* v, const torch::jit::Node* user) {
    auto it = ids_.find(v);
    TORCH_CHECK(it != ids_.end(), "symbolite backend: unsupported input of ", *user);
    return it->second;
  }

  size_t add_constant(const c10::IValue& value, const torch::jit::Node* node) {
    DelegateValue v;
    if (value.isTensor()) {
      v.kind = DelegateValue::Kind::kWeight;
      v.integer = static_cast<int64_t>(weights_.size());
      weights_.push_back(value.toTensor());
    } else if (value.isInt()) {
      v.kind = DelegateValue::Kind::kInt;
      v.integer = value.toInt();
    } else if (value.isDouble()) {
      v.kind = DelegateValue::Kind::kFloat;
      v.number = value.toDouble();
    } else if (value.isBool()) {
      v.kind = DelegateValue::Kind::kBool;
      v.integer = value.toBool() ? 1 : 0;
    } else if (value.isNone()) {
      v.kind = DelegateValue::Kind::kNone;
    } else if (value.isString()) {
      v.kind = DelegateValue::Kind::kString;
      v.text = value.toStringRef();
    } else if (value.isList()) {
      v.kind = DelegateValue::Kind::kList;
      for (const auto& item : value.toListRef()) v.items.push_back(add_constant(item, node));
    } else {
      TORCH_CHECK(false, "symbolite backend: unsupported constant in ", *node);
    }
    return program_.add_value(std::move(v));
  }

  void add_node(torch::jit::Node* node) {
    const auto kind = node->kind();
    if (kind == c10::prim::Constant) {
      if (!node->output()->hasUses()) return;
      auto value = torch::jit::toIValue(node->output());
      TORCH_CHECK(value.has_value(), "symbolite backend: unsupported constant ", *node);
      ids_[node->output()] = add_constant(*value, node);
      return;
    }
    if (kind == c10::prim::GetAttr) {
      // Attribute reads of the lowered module: submodules are followed, values are baked in.
      auto owner = objects_.find(node->input());
      TORCH_CHECK(owner != objects_.end(), "symbolite backend: unsupported attribute read ", *node);
      auto value = owner->second.toObjectRef().getAttr(node->s(c10::attr::name));
      if (value.isObject()) {
        objects_[node->output()] = value;
      } else if (node->output()->hasUses()) {
        ids_[node->output()] = add_constant(value, node);
      }
      return;
    }
    if (kind == c10::prim::ListConstruct) {
      DelegateValue v;
      v.kind = DelegateValue::Kind::kList;
      for (auto* input : node->inputs()) v.items.push_back(id_of(input, node));
      ids_[node->output()] = program_.add_value(std::move(v));
      return;
    }
    if (kind == c10::prim::TupleConstruct && node == graph_->outputs().at(0)->node()) return;
    TORCH_CHECK(node->maybeSchema() != nullptr, "symbolite backend: unsupported node ", *node);
    const auto& schema = node->schema();
    std::string name = schema.name();
    if (!schema.overload_name().empty()) name += "." + schema.overload_name();
    auto handle = handles_.find(node);
    TORCH_CHECK(handle != handles_.end(), "symbolite backend: no debug handle for ", *node);
    std::vector<size_t> args;
    for (auto* input : node->inputs()) args.push_back(id_of(input, node));
    size_t first = program_.add_step(handle->second, name, std::move(args), node->outputs().size());
    for (size_t i = 0; i < node->outputs().size(); ++i) ids_[node->outputs()[i]] = first + i;
  }

  const torch::jit::Module& module_;
  std::string method_;
  std::shared_ptr<torch::jit::Graph> graph_;
  std::unordered_map<torch::jit::Node*, int64_t> handles_;
  std::map<const torch::jit::Value*, size_t> ids_;
  std::map<const torch::jit::Value*, c10::IValue> objects_;
  DelegateProgram program_;
  c10::List<at::Tensor> weights_;
};

c10::IValue preprocess(const torch::jit::Module& mod,
                       const c10::Dict<c10::IValue, c10::IValue>& method_compile_spec,
                       const torch::jit::BackendDebugHandleGenerator& generate) {
  c10::impl::GenericDict processed(c10::StringType::get(), c10::AnyType::get());
  for (const auto& entry : method_compile_spec) {
    const auto method = entry.key().toStringRef();
    processed.insert(method, ProgramBuilder(mod, method, generate).build());
  }
  return processed;
}

// ---- compile and execute: delegate program -> dispatcher calls ------------------------------

struct Compiled {
  DelegateProgram program;
  std::vector<c10::IValue> constants;                            // per value id
  std::vector<std::shared_ptr<torch::jit::Operator>> operators;  // per step
  std::vector<torch::jit::Operation> operations;                 // per step
};

// A list value as the schema argument `type` wants it.
c10::IValue typed_list(const std::vector<c10::IValue>& items, c10::TypePtr type) {
  if (type->kind() == c10::TypeKind::OptionalType) {
    type = type->expectRef<c10::OptionalType>().getElementType();  // int[1]? and friends
  }
  auto element = type->kind() == c10::TypeKind::ListType
                     ? type->expectRef<c10::ListType>().getElementType()
                     : c10::AnyType::get();
  if (element->kind() == c10::TypeKind::IntType) {
    c10::List<int64_t> out;
    for (const auto& v : items) out.push_back(v.toInt());
    return out;
  }
  if (element->kind() == c10::TypeKind::FloatType) {
    c10::List<double> out;
    for (const auto& v : items) out.push_back(v.toDouble());
    return out;
  }
  if (element->kind() == c10::TypeKind::BoolType) {
    c10::List<bool> out;
    for (const auto& v : items) out.push_back(v.toBool());
    return out;
  }
  if (element->kind() == c10::TypeKind::TensorType) {
    c10::List<at::Tensor> out;
    for (const auto& v : items) out.push_back(v.toTensor());
    return out;
  }
  if (element->kind() == c10::TypeKind::OptionalType) {
    c10::List<c10::optional<at::Tensor>> out;
    for (const auto& v : items) {
      out.push_back(v.isNone() ? c10::optional<at::Tensor>() : v.toTensor());
    }
    return out;
  }
  // Any other element type (str[], ...): a list typed as the schema says.
  c10::impl::GenericList out(element);
  for (const auto& v : items) out.push_back(v);
  return out;
}

Compiled compile_payload(const std::string& method, const c10::IValue& payload) {
  Compiled compiled;
  std::vector<c10::IValue> weights;
  std::string text;
  if (payload.isString()) {
    text = payload.toStringRef();
  } else {
    TORCH_CHECK(payload.isTuple() && payload.toTupleRef().elements().size() == 2,
                "symbolite backend: the payload of ", method, " is not (program, weights)");
    text = payload.toTupleRef().elements()[0].toStringRef();
    for (const auto& w : payload.toTupleRef().elements()[1].toListRef()) weights.push_back(w);
  }
  try {
    compiled.program = symbolite::mobile::parse_delegate_program(text);
  } catch (const std::exception& e) {
    TORCH_CHECK(false, "symbolite backend: ", method, ": ", e.what());
  }
  const auto& program = compiled.program;
  TORCH_CHECK(program.num_weights <= weights.size(), "symbolite backend: ", method, " uses ",
              program.num_weights, " weights; the payload has ", weights.size());
  for (const auto& v : program.values) {
    switch (v.kind) {
      case DelegateValue::Kind::kWeight:
        compiled.constants.push_back(weights[v.integer]);
        break;
      case DelegateValue::Kind::kInt:
        compiled.constants.emplace_back(v.integer);
        break;
      case DelegateValue::Kind::kFloat:
        compiled.constants.emplace_back(v.number);
        break;
      case DelegateValue::Kind::kBool:
        compiled.constants.emplace_back(v.integer != 0);
        break;
      case DelegateValue::Kind::kString:
        compiled.constants.emplace_back(v.text);
        break;
      default:
        compiled.constants.emplace_back();
        break;
    }
  }
  for (const auto& step : program.steps) {
    auto dot = step.op.find('.');
    std::string name = step.op.substr(0, dot);
    std::string overload = dot == std::string::npos ? "" : step.op.substr(dot + 1);
    // The JIT's operator table: ATen's dispatcher operators and TorchScript's own
    // (aten::size, aten::__getitem__.t, ...).
    auto op = torch::jit::findOperatorFor(c10::OperatorName(name, overload));
    TORCH_CHECK(op != nullptr, "symbolite backend: ", method, ": unknown operator ", step.op);
    TORCH_CHECK(step.args.size() <= op->schema().arguments().size(), "symbolite backend: ", step.op,
                " takes ", op->schema().arguments().size(), " arguments, got ", step.args.size());
    compiled.operations.push_back(op->getOperation());
    compiled.operators.push_back(std::move(op));
  }
  return compiled;
}

class SymboliteBackend : public torch::jit::PyTorchBackendInterface {
 public:
  bool is_available() override { return true; }

  c10::impl::GenericDict compile(c10::IValue processed,
                                 c10::impl::GenericDict /*method_compile_spec*/) override {
    c10::Dict<std::string, int64_t> handles;
    for (const auto& entry : processed.toGenericDict()) {
      const auto& method = entry.key().toStringRef();
      programs_.push_back(compile_payload(method, entry.value()));
      handles.insert(method, static_cast<int64_t>(programs_.size() - 1));
    }
    return c10::impl::toGenericDict(handles);
  }

  c10::impl::GenericList execute(c10::IValue handle, c10::impl::GenericList inputs) override {
    const auto index = handle.toInt();
    TORCH_CHECK(index >= 0 && static_cast<size_t>(index) < programs_.size(),
                "symbolite backend: bad handle ", index);
    Compiled& compiled = programs_[static_cast<size_t>(index)];
    const auto& program = compiled.program;
    TORCH_CHECK(inputs.size() == program.num_inputs, "symbolite backend: ", inputs.size(),
                " inputs given, ", program.num_inputs, " expected");
    std::vector<c10::IValue> values = compiled.constants;
    for (size_t id = 0; id < values.size(); ++id) {
      if (program.values[id].kind == DelegateValue::Kind::kInput) {
        values[id] = inputs.get(static_cast<size_t>(program.values[id].integer));
      }
    }
    auto value_for = [&](size_t id, const c10::TypePtr& type) -> c10::IValue {
      const auto& v = program.values[id];
      if (v.kind != DelegateValue::Kind::kList) return values[id];
      std::vector<c10::IValue> items;
      for (auto item : v.items) items.push_back(values[item]);
      return typed_list(items, type);
    };
    for (size_t s = 0; s < program.steps.size(); ++s) {
      const auto& step = program.steps[s];
      const auto& arguments = compiled.operators[s]->schema().arguments();
      torch::jit::Stack stack;
      for (size_t i = 0; i < arguments.size(); ++i) {
        if (i < step.args.size()) {
          stack.push_back(value_for(step.args[i], arguments[i].type()));
        } else {
          TORCH_CHECK(arguments[i].default_value().has_value(), "symbolite backend: ", step.op,
                      " needs argument ", arguments[i].name());
          stack.push_back(*arguments[i].default_value());
        }
      }
      try {
        compiled.operations[s](stack);
      } catch (const c10::Error& e) {
        TORCH_DELEGATED_BACKEND_THROW(false, e.what_without_backtrace(), step.handle);
      }
      TORCH_CHECK(stack.size() == step.outputs.size(), "symbolite backend: ", step.op, " returned ",
                  stack.size(), " values, expected ", step.outputs.size());
      for (size_t i = 0; i < step.outputs.size(); ++i) values[step.outputs[i]] = stack[i];
    }
    c10::impl::GenericList outputs(c10::AnyType::get());
    for (auto id : program.outputs) outputs.push_back(value_for(id, c10::AnyType::get()));
    return outputs;
  }

 private:
  std::vector<Compiled> programs_;
};

// A custom class is registered per C++ type: each name needs a type of its own.
class EagerBackend : public SymboliteBackend {};
// "xnnpack": files `symbolite lower --backend xnnpack` writes. Inside PyTorch the programs run
// on ATen's kernels (symbolite's runtime runs them on XNNPACK's operators): same payload, same
// handles, outputs equal within float tolerance.
class XnnpackBackend : public SymboliteBackend {};

const auto symbolite_backend = torch::jit::backend<SymboliteBackend>("symbolite");
const auto symbolite_preprocess = torch::jit::backend_preprocess_register("symbolite", preprocess);
// "eager": the same programs, by the name of symbolite's debugging backend (runs partitions
// with the reference kernels: ATen here, symbolite's own in symbolite).
const auto eager_backend = torch::jit::backend<EagerBackend>("eager");
const auto eager_preprocess = torch::jit::backend_preprocess_register("eager", preprocess);
const auto xnnpack_backend = torch::jit::backend<XnnpackBackend>("xnnpack");
const auto xnnpack_preprocess = torch::jit::backend_preprocess_register("xnnpack", preprocess);

}  // namespace
}  // namespace symbolite_torch
