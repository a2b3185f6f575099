#include "symbolite/compiler/lowering/lowering.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "symbolite/compiler/delegate_debug.h"
#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/lowering/delegate_program_builder.h"
#include "symbolite/compiler/lowering/lowered_class.h"
#include "symbolite/compiler/verifier.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/mobile/model_writer.h"
#include "symbolite/pickle/pickler.h"
#include "symbolite/support/error.h"
#include "symbolite/support/output_files.h"

namespace symbolite::compiler {
namespace {

constexpr std::string_view kOutsideModules = "outside the modules to lower";
constexpr std::string_view kNotSelected = "not among the candidates selected";

// Narrows a support further to chosen nodes.
class SelectedSupport final : public BackendSupport {
 public:
  SelectedSupport(const BackendSupport& inner, std::set<const Node*> chosen)
      : inner_(inner), chosen_(std::move(chosen)) {}
  const std::string& name() const override { return inner_.name(); }
  std::optional<std::string> why_unsupported(const Node& node) const override {
    if (auto why = inner_.why_unsupported(node)) return why;
    if (!chosen_.contains(&node)) return std::string(kNotSelected);
    return std::nullopt;
  }

 private:
  const BackendSupport& inner_;
  std::set<const Node*> chosen_;
};

// "layer1.0.conv1": the instances a node was inlined through, outermost first.
std::string module_path(const Node& node) {
  std::string path;
  for (const auto* frame = node.call_stack().get(); frame != nullptr;
       frame = frame->callee().get()) {
    const auto& instance = frame->module_instance();
    if (!instance || instance->instance_name.empty() || instance->instance_name == "SELF") continue;
    if (!path.empty()) path += '.';
    path += instance->instance_name;
  }
  return path;
}

bool in_modules(const std::string& path, const std::vector<std::string>& modules) {
  for (const auto& m : modules) {
    if (path == m || (path.size() > m.size() && path.starts_with(m) && path[m.size()] == '.'))
      return true;
  }
  return false;
}

// The backend's support, narrowed to the named modules and to what a payload can carry.
class LoweringSupport final : public BackendSupport {
 public:
  LoweringSupport(const BackendSupport& inner, const std::vector<std::string>& modules)
      : inner_(inner), modules_(modules) {}
  const std::string& name() const override { return inner_.name(); }
  std::optional<std::string> why_unsupported(const Node& node) const override {
    if (!modules_.empty() && !in_modules(module_path(node), modules_))
      return std::string(kOutsideModules);
    for (const Value* input : node.inputs()) {
      const Node* def = input->node();
      if (def->kind() == "prim::Constant" && def->attr("value").is(pickle::Value::Kind::kTensor)) {
        return std::string(
            "uses a tensor constant of the bytecode, which a payload cannot carry yet");
      }
    }
    return inner_.why_unsupported(node);
  }

 private:
  const BackendSupport& inner_;
  const std::vector<std::string>& modules_;
};

std::string source_of(const Node& node) {
  auto position = node.source_range().file_line_col();
  if (!position || position->filename.empty()) return {};
  return fmt::format("{}:{}:{}", position->filename, position->line, position->column);
}

// Where the lowered call stands in the top method: the call site (in the top method) that led
// to the partition's first operator, or that operator itself.
debuginfo::SourceRange call_site(const Partition& partition) {
  for (const Node* node : partition.nodes) {
    if (is_static_argument(*node)) continue;
    if (node->call_stack()) return node->call_stack()->callsite();
    return node->source_range();
  }
  return {};
}

// Replaces `partition` by the inlined body of the lowered module's forward:
//   %m = self.__lowered_<i>; %b = %m.__backend; %h = %m.__handles["forward"]
//   %outs = %b.execute(%h, [inputs...]); %o0, %o1, ... = %outs
// Returns (replaced value, replacement) per partition output.
std::vector<std::pair<Value*, Value*>> replace_partition(Graph& graph, const Partition& partition,
                                                         const std::string& attribute,
                                                         std::int64_t slot,
                                                         const LoweredClass& cls) {
  auto frame = std::make_shared<const debuginfo::InlinedCallStack>(
      debuginfo::ModuleInstance{cls.type, attribute}, call_site(partition),
      debuginfo::kNoSourceRangeTag, "forward", nullptr);
  Node* cursor = partition.nodes.back();
  auto place = [&](Node* node, std::string_view snippet) {
    node->set_origin(NodeOrigin{cls.range_of(snippet), frame});
    node->move_after(cursor);
    cursor = node;
    return node;
  };
  auto get_attr = [&](Value* object, const std::string& name, std::int64_t s, Type type,
                      std::string_view snippet) {
    Node* n = place(graph.create("prim::GetAttr", {object}), snippet);
    n->set_attr("name", pickle::Value::string(name));
    n->set_attr("slot", pickle::Value::integer(s));
    n->output()->set_type(std::move(type));
    return n->output();
  };
  Value* module =
      get_attr(graph.inputs().front(), attribute, slot, cls.type, "self.__backend.is_available()");
  Value* backend = get_attr(module, "__backend", lowered_slots::kBackend, cls.backend_type,
                            "self.__backend.is_available()");
  Node* inputs = place(graph.create("prim::ListConstruct", partition.inputs), "inputs");
  inputs->set_attr("type", pickle::Value::string("List[Any]"));
  inputs->output()->set_type("Any[]");
  Node* available =
      place(graph.create("prim::CallMethod", {backend}), "self.__backend.is_available()");
  available->set_attr("name", pickle::Value::string("is_available"));
  available->set_attr("interface", pickle::Value::boolean(true));
  available->output()->set_type("bool");
  // if self.__backend.is_available(): execute; else: raise, as PyTorch's generated forward.
  const std::size_t n = partition.outputs.size();
  Node* branch = place(graph.create("prim::If", {available->output()}, n),
                       "if self.__backend.is_available():");
  Block* run = branch->add_block();
  Block* refuse = branch->add_block();
  auto add = [&](Block* block, Node* node, std::string_view snippet) {
    node->set_origin(NodeOrigin{cls.range_of(snippet), frame});
    block->append(node);
    return node;
  };
  const std::string_view execute = "self.__backend.execute(self.__handles[\"forward\"], inputs)";
  Node* handles = add(run, graph.create("prim::GetAttr", {module}), "self.__handles");
  handles->set_attr("name", pickle::Value::string("__handles"));
  handles->set_attr("slot", pickle::Value::integer(lowered_slots::kHandles));
  handles->output()->set_type("Dict(str, Any)");
  Node* key = add(run, graph.create_constant(pickle::Value::string("forward")), "\"forward\"");
  Node* handle = add(run, graph.create("aten::__getitem__", {handles->output(), key->output()}),
                     "self.__handles[\"forward\"]");
  handle->set_overload("Dict_str");
  Node* call =
      add(run, graph.create("prim::CallMethod", {backend, handle->output(), inputs->output()}),
          execute);
  call->set_attr("name", pickle::Value::string("execute"));
  call->set_attr("interface", pickle::Value::boolean(true));
  call->output()->set_type("Any[]");
  Node* unpack = add(run, graph.create("prim::ListUnpack", {call->output()}, n), execute);
  for (std::size_t i = 0; i < n; ++i) run->add_output(unpack->output(i));
  Node* message = add(
      refuse, graph.create_constant(pickle::Value::string("Exception: Backend is not available.")),
      "raise Exception(\"Backend is not available.\")");
  Node* none = add(refuse, graph.create_constant(pickle::Value::none()),
                   "raise Exception(\"Backend is not available.\")");
  add(refuse, graph.create("prim::RaiseException", {message->output(), none->output()}, 0),
      "raise Exception(\"Backend is not available.\")");
  for (std::size_t i = 0; i < n; ++i) {
    refuse->add_output(add(refuse, graph.create("prim::Uninitialized", {}), "raise")->output());
  }
  std::vector<std::pair<Value*, Value*>> replaced;
  for (std::size_t i = 0; i < n; ++i) {
    unpack->output(i)->set_type(partition.outputs[i]->type());
    branch->output(i)->set_type(partition.outputs[i]->type());
    partition.outputs[i]->replace_all_uses_with(branch->output(i));
    replaced.emplace_back(partition.outputs[i], branch->output(i));
  }
  for (auto it = partition.nodes.rbegin(); it != partition.nodes.rend(); ++it) (*it)->destroy();
  return replaced;
}

pickle::Value with_attributes(const pickle::Value& object,
                              std::vector<std::pair<pickle::Value, pickle::Value>> added) {
  const auto& o = object.as_object();
  pickle::DictItems items = o.state.as_dict();
  for (auto& item : added) items.push_back(std::move(item));
  return pickle::Value::object(o.type_name, pickle::Value::dict(std::move(items)));
}

}  // namespace

std::vector<Node*> lowering_candidates(Graph& graph, const BackendSupport& support,
                                       const std::vector<std::string>& modules) {
  LoweringSupport narrowed(support, modules);
  std::vector<Node*> candidates;
  for_each_node(graph.block(), [&](Node* node) {
    if (!is_static_argument(*node) && !narrowed.why_unsupported(*node)) candidates.push_back(node);
  });
  return candidates;
}

LoweringReport lower_program(Program& program, const BackendSupport& support,
                             const LoweringOptions& options,
                             debuginfo::DebugInfoRecorder& recorder) {
  Function* function = program.find(program.top_type + "." + options.method);
  if (function == nullptr) {
    throw Error(ErrorKind::kNotFound,
                fmt::format("{} has no method '{}'", program.top_type, options.method));
  }
  if (!program.root_object.is(pickle::Value::Kind::kObject) ||
      !program.root_object.as_object().state.is(pickle::Value::Kind::kDict)) {
    throw Error(ErrorKind::kUnsupported, "the top module's state is not an attribute dict");
  }
  Graph& graph = *function->graph;
  LoweringSupport narrowed(support, options.modules);
  LoweringReport report;
  const std::vector<Node*> candidates = lowering_candidates(graph, support, options.modules);
  for (const Node* node : candidates) {
    report.candidates.push_back({node->qualified_kind(),
                                 node->module_hierarchy(program.top_type, options.method),
                                 source_of(*node)});
  }
  std::set<const Node*> chosen;
  if (options.only_candidates) {
    for (auto i : *options.only_candidates) {
      if (i >= candidates.size()) {
        throw Error(ErrorKind::kUsage, fmt::format("candidate {} of {}", i, candidates.size()));
      }
      chosen.insert(candidates[i]);
    }
  }
  SelectedSupport selected(narrowed, std::move(chosen));
  const BackendSupport& used =
      options.only_candidates ? static_cast<const BackendSupport&>(selected) : narrowed;
  PartitionPlan plan = partition_graph(graph, used, options.partition);

  for (const auto& r : plan.rejected) {
    if (r.reason == kOutsideModules || r.reason == kNotSelected) continue;
    report.rejected.push_back({r.node->qualified_kind(), r.reason,
                               r.node->module_hierarchy(program.top_type, options.method),
                               source_of(*r.node)});
  }
  if (!options.modules.empty()) {
    for (const auto& m : options.modules) {
      bool found = false;
      for_each_node(graph.block(),
                    [&](Node* node) { found = found || in_modules(module_path(*node), {m}); });
      if (!found) {
        throw Error(ErrorKind::kUsage, fmt::format("no node of {} comes from a module '{}'",
                                                   function->qualified_name, m));
      }
    }
  }
  if (plan.partitions.empty()) return report;

  LoweredClass cls = make_lowered_class(options.backend, program.top_type);
  const std::int64_t first_slot =
      static_cast<std::int64_t>(program.root_object.as_object().state.as_dict().size());
  std::vector<std::pair<pickle::Value, pickle::Value>> attributes;
  std::map<Value*, Value*> replaced;  // outputs of lowered partitions -> the call's results
  for (std::size_t i = 0; i < plan.partitions.size(); ++i) {
    Partition& partition = plan.partitions[i];
    for (Value*& input : partition.inputs) {
      if (auto it = replaced.find(input); it != replaced.end()) input = it->second;
    }
    // Static values the partition shares with others are copied into its program.
    std::erase_if(partition.inputs, [&](const Value* v) { return is_static_value(v, graph); });
    // Backend handles first, then (at emission) the instructions', as PyTorch numbers them.
    auto nodes = record_delegate_nodes(partition, recorder);
    auto built = build_delegate_program(partition, nodes, graph, program.root_object);
    std::string text = mobile::print_delegate_program(built.program);

    LoweredPartition lowered;
    lowered.attribute = fmt::format("__lowered_{}", i);
    for (const auto& n : nodes) {
      lowered.operators.push_back(n.node->qualified_kind());
      lowered.handles.push_back(n.handle);
      lowered.module_hierarchies.push_back(
          n.node->module_hierarchy(program.top_type, options.method));
    }
    lowered.inputs = partition.inputs.size();
    lowered.outputs = partition.outputs.size();
    lowered.weights = built.weights.size();
    lowered.program_bytes = text.size();

    pickle::Value method_spec = pickle::Value::dict({});
    pickle::Value spec =
        pickle::Value::dict({{pickle::Value::string(options.method), method_spec}});
    pickle::Value processed = pickle::Value::dict(
        {{pickle::Value::string(options.method),
          pickle::Value::tuple(
              {pickle::Value::string(text), pickle::Value::list(std::move(built.weights))})}});
    for (const auto* dict : {&method_spec, &spec, &processed}) {
      program.data_type_tags.emplace(dict->identity(), "Dict[str, Any]");
    }
    attributes.emplace_back(
        pickle::Value::string(lowered.attribute),
        pickle::Value::object(
            cls.type, pickle::Value::tuple({spec, processed, pickle::Value::boolean(true)})));
    for (auto [from, to] : replace_partition(graph, partition, lowered.attribute,
                                             first_slot + static_cast<std::int64_t>(i), cls)) {
      replaced[from] = to;
    }
    report.partitions.push_back(std::move(lowered));
  }
  verify(graph);
  program.root_object = with_attributes(program.root_object, std::move(attributes));
  program.functions.push_back(lowered_setstate(cls));
  program.functions.push_back(lowered_getstate(cls));
  return report;
}

LoweringReport lower_model(const std::string& input, const std::string& output,
                           const BackendSupport& support, const LoweringOptions& options) {
  LoweredModelBytes lowered = lower_model_bytes(input, support, options);
  write_file_atomically(output, lowered.bytes);
  return std::move(lowered.report);
}

LoweredModelBytes lower_model_bytes(const std::string& input, const BackendSupport& support,
                                    const LoweringOptions& options) {
  mobile::ModelInfo model = mobile::ModelInfo::load(input);
  Program program = lift(model);
  auto passes = run_passes(program, options.passes);
  debuginfo::DebugInfoRecorder recorder;
  LoweringReport report =
      with_context(input, [&] { return lower_program(program, support, options, recorder); });
  report.passes = std::move(passes);
  EmittedProgram emitted = emit_program(program, options.handles, recorder);
  report.functions = emitted.bytecode.functions.size();
  for (const auto& fn : emitted.bytecode.functions) report.instructions += fn.instructions.size();
  return {std::move(report), program_model_bytes(model, program, emitted)};
}

std::vector<std::uint8_t> program_model_bytes(const mobile::ModelInfo& model,
                                              const Program& program,
                                              const EmittedProgram& emitted) {
  auto data = pickle::pickle(program.root_object, program.data_type_tags);
  bool has_debug = model.debug.has_callstack_map;
  return mobile::write_model_bytes(model.archive, emitted.bytecode,
                                   has_debug ? &emitted.debug : nullptr, &data);
}

}  // namespace symbolite::compiler
