#include "symbolite/compiler/lowering/node_isolation.h"

#include <set>

#include <fmt/format.h>

#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/lowering/delegate_program_builder.h"
#include "symbolite/compiler/passes/dead_code_elimination.h"
#include "symbolite/compiler/verifier.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/error.h"

namespace symbolite::compiler {
namespace {

// The model lifted and passed as lowering sees it, with the candidate found.
struct Cut {
  mobile::ModelInfo model;
  Program program;
  Function* function = nullptr;
  Node* node = nullptr;
  std::vector<Value*> dynamic_inputs;  // the node's inputs that are not static values, deduplicated
};

Cut prepare(const std::string& input, const BackendSupport& support, const LoweringOptions& options,
            std::size_t candidate) {
  Cut cut{mobile::ModelInfo::load(input), {}, nullptr, nullptr, {}};
  cut.program = lift(cut.model);
  run_passes(cut.program, options.passes);
  cut.function = cut.program.find(cut.program.top_type + "." + options.method);
  if (cut.function == nullptr) {
    throw Error(ErrorKind::kNotFound,
                fmt::format("{} has no method '{}'", cut.program.top_type, options.method));
  }
  Graph& graph = *cut.function->graph;
  auto candidates = lowering_candidates(graph, support, options.modules);
  if (candidate >= candidates.size()) {
    throw Error(ErrorKind::kUsage, fmt::format("candidate {} of {}", candidate, candidates.size()));
  }
  cut.node = candidates[candidate];
  if (cut.node->owning_block() != graph.block()) {
    throw Error(
        ErrorKind::kUnsupported,
        fmt::format("{} is inside a {}: only nodes of the method's own block can be isolated",
                    cut.node->qualified_kind(), cut.node->owning_block()->owning_node()->kind()));
  }
  std::set<Value*> seen;
  for (Value* v : cut.node->inputs()) {
    if (!is_static_value(v, graph) && seen.insert(v).second) cut.dynamic_inputs.push_back(v);
  }
  return cut;
}

// Makes `values` the method's results: one value as is, several as a tuple.
void return_values(Function& function, const std::vector<Value*>& values, Node* after) {
  Graph& graph = *function.graph;
  Node* ret = graph.block()->return_node();
  ret->remove_all_inputs();
  Value* result = nullptr;
  if (values.size() == 1) {
    result = values.front();
  } else {
    Node* tuple = graph.create("prim::TupleConstruct", values);
    tuple->set_origin(after->origin());
    tuple->move_after(after);
    std::string type = "Tuple[";
    for (std::size_t i = 0; i < values.size(); ++i) type += (i > 0 ? ", " : "") + values[i]->type();
    tuple->output()->set_type(type + "]");
    result = tuple->output();
  }
  graph.block()->add_output(result);
  function.returns = {mobile::Argument{"", result->type(), pickle::Value::none()}};
}

// Destroys every node of the method's block after `last`, latest first.
void destroy_after(Graph& graph, Node* last) {
  while (graph.block()->return_node()->prev() != last)
    graph.block()->return_node()->prev()->destroy();
}

std::vector<std::uint8_t> to_bytes(const Cut& cut) {
  verify(*cut.function->graph);
  debuginfo::DebugInfoRecorder recorder;
  return program_model_bytes(cut.model, cut.program,
                             emit_program(cut.program, HandleScheme::kCounter, recorder));
}

}  // namespace

IsolatedNode isolate_candidate(const std::string& input, const BackendSupport& support,
                               const LoweringOptions& options, std::size_t candidate) {
  IsolatedNode out;

  // The probe: everything up to the node, returning what the node would receive.
  {
    Cut cut = prepare(input, support, options, candidate);
    Graph& graph = *cut.function->graph;
    out.nodes_before = graph.node_count();
    if (cut.dynamic_inputs.empty()) {
      throw Error(
          ErrorKind::kUnsupported,
          fmt::format("{} reads only constants and module attributes: the model is already minimal "
                      "around it",
                      cut.node->qualified_kind()));
    }
    Node* before = cut.node->prev();
    cut.node->owning_block()->return_node()->remove_all_inputs();
    destroy_after(graph, before);
    return_values(*cut.function, cut.dynamic_inputs, graph.block()->return_node()->prev());
    eliminate_dead_code(graph);
    out.probe = to_bytes(cut);
  }

  // The isolated model: the node, fed by new method inputs, and the static values it reads.
  Cut cut = prepare(input, support, options, candidate);
  Graph& graph = *cut.function->graph;
  Node* node = cut.node;
  const std::size_t old_inputs = graph.inputs().size();
  std::vector<mobile::Argument> arguments = {cut.function->arguments.front()};
  for (std::size_t i = 0; i < cut.dynamic_inputs.size(); ++i) {
    Value* from = cut.dynamic_inputs[i];
    Value* parameter = graph.block()->add_input(from->type());
    parameter->set_debug_name(fmt::format("input_{}", i));
    for (std::size_t k = 0; k < node->inputs().size(); ++k) {
      if (node->input(k) == from) node->replace_input(k, parameter);
    }
    arguments.push_back({fmt::format("input_{}", i), from->type(), pickle::Value::none()});
    out.input_types.push_back(from->type());
  }
  graph.block()->return_node()->remove_all_inputs();
  destroy_after(graph, node);
  // What the node reads statically, transitively; everything else before it goes.
  std::set<const Node*> keep = {node};
  for (Node* n = node; n != nullptr && !n->is_param(); n = n->prev()) {
    if (!keep.contains(n)) continue;
    for (const Value* v : n->inputs()) {
      if (v->node()->owning_block() == graph.block() && !v->node()->is_param())
        keep.insert(v->node());
    }
  }
  for (Node* n = node->prev(); n != nullptr && !n->is_param();) {
    Node* previous = n->prev();
    if (!keep.contains(n)) n->destroy();
    n = previous;
  }
  // The original inputs (after self) are unused now.
  for (std::size_t i = old_inputs; i-- > 1;) graph.block()->param_node()->erase_output(i);
  cut.function->arguments = std::move(arguments);
  return_values(*cut.function, node->outputs(), node);
  out.nodes_after = graph.node_count();
  out.isolated = to_bytes(cut);
  return out;
}

}  // namespace symbolite::compiler
