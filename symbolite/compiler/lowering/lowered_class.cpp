#include "symbolite/compiler/lowering/lowered_class.h"

#include <fmt/format.h>

#include "symbolite/debuginfo/source.h"

namespace symbolite::compiler {
namespace {

constexpr std::string_view kStateType = "Tuple[Dict[str, Any], Any, bool]";

// What the class would be in TorchScript; ranges of the generated nodes point here.
std::string template_text(const std::string& backend_type) {
  return fmt::format(
      "class LoweredModule:\n"
      "    def __setstate__(self, state: Tuple[Dict[str, Any], Any, bool]):\n"
      "        self.__method_compile_spec = state[0]\n"
      "        self.__processed_module = state[1]\n"
      "        self.__backend = {}()\n"
      "        self.__backend_debug_info = "
      "__torch__.torch.classes.backendutils.BackendDebugInfo()\n"
      "        self.__handles = self.__backend.compile(self.__processed_module, "
      "self.__method_compile_spec)\n"
      "    def __getstate__(self):\n"
      "        return (self.__method_compile_spec, self.__processed_module, True)\n"
      "    def forward(self, inputs: List[Any]):\n"
      "        if self.__backend.is_available():\n"
      "            return self.__backend.execute(self.__handles[\"forward\"], inputs)\n"
      "        else:\n"
      "            raise Exception(\"Backend is not available.\")\n",
      backend_type);
}

Node* append(Graph& g, Node* node, const debuginfo::SourceRange& range) {
  node->set_origin(NodeOrigin{range, nullptr});
  g.block()->append(node);
  return node;
}

Node* get_attr(Graph& g, Value* object, std::int64_t slot, const char* name, Type type,
               const debuginfo::SourceRange& range) {
  Node* n = append(g, g.create("prim::GetAttr", {object}), range);
  n->set_attr("name", pickle::Value::string(name));
  n->set_attr("slot", pickle::Value::integer(slot));
  n->output()->set_type(std::move(type));
  return n;
}

void set_attr(Graph& g, Value* object, std::int64_t slot, const char* name, Value* value,
              const debuginfo::SourceRange& range) {
  Node* n = append(g, g.create("prim::SetAttr", {object, value}, 0), range);
  n->set_attr("name", pickle::Value::string(name));
  n->set_attr("slot", pickle::Value::integer(slot));
}

Node* call_method(Graph& g, const char* name, const std::vector<Value*>& args,
                  const debuginfo::SourceRange& range) {
  Node* n = append(g, g.create("prim::CallMethod", args), range);
  n->set_attr("name", pickle::Value::string(name));
  n->set_attr("interface", pickle::Value::boolean(true));
  return n;
}

Value* constant(Graph& g, pickle::Value value) {
  return g.block()->append(g.create_constant(std::move(value)))->output();
}

// A new object of a custom class, constructed: `Class()`.
Value* create_object(Graph& g, const std::string& type, const debuginfo::SourceRange& range) {
  Node* create = append(g, g.create("prim::CreateObject", {}), range);
  create->set_attr("type", pickle::Value::string(type));
  create->output()->set_type(type);
  call_method(g, "__init__", {create->output()}, range);
  return create->output();
}

}  // namespace

debuginfo::SourceRange LoweredClass::range_of(std::string_view snippet) const {
  auto at = source->text().find(snippet);
  if (at == std::string_view::npos) return {};
  return debuginfo::SourceRange(source, at, at + snippet.size());
}

LoweredClass make_lowered_class(const std::string& backend, const std::string& top_type) {
  LoweredClass cls;
  cls.type = fmt::format("torch.jit.LoweredModule.{}.{}", backend, top_type);
  cls.backend_type = "__torch__.torch.classes.__backends__." + backend;
  cls.source = std::make_shared<const debuginfo::Source>(
      Bytes::copy_of(template_text(cls.backend_type)), std::string("<string>"), 1);
  return cls;
}

Function lowered_setstate(const LoweredClass& cls) {
  namespace s = lowered_slots;
  Function fn;
  fn.qualified_name = cls.type + ".__setstate__";
  fn.graph = std::make_unique<Graph>();
  Graph& g = *fn.graph;
  Value* self = g.block()->add_input(cls.type);
  self->set_debug_name("self");
  Value* state = g.block()->add_input(std::string(kStateType));
  state->set_debug_name("state");
  fn.arguments = {{"self", cls.type, pickle::Value::none()},
                  {"state", std::string(kStateType), pickle::Value::none()}};
  fn.returns = {{"", "NoneType", pickle::Value::none()}};

  auto item = [&](std::int64_t i, const char* text) {
    Node* n =
        append(g, g.create("prim::TupleIndex", {state, constant(g, pickle::Value::integer(i))}),
               cls.range_of(text));
    return n->output();
  };
  Value* spec = item(0, "state[0]");
  spec->set_type("Dict(str, Any)");
  set_attr(g, self, s::kCompileSpec, "__method_compile_spec", spec,
           cls.range_of("self.__method_compile_spec = state[0]"));
  Value* processed = item(1, "state[1]");
  set_attr(g, self, s::kProcessed, "__processed_module", processed,
           cls.range_of("self.__processed_module = state[1]"));
  Value* backend = create_object(g, cls.backend_type, cls.range_of(cls.backend_type + "()"));
  set_attr(g, self, s::kBackend, "__backend", backend, cls.range_of("self.__backend = "));
  const std::string debug_type = "__torch__.torch.classes.backendutils.BackendDebugInfo";
  Value* debug = create_object(g, debug_type, cls.range_of(debug_type + "()"));
  set_attr(g, self, s::kDebugInfo, "__backend_debug_info", debug,
           cls.range_of("self.__backend_debug_info = "));
  Node* compiled = call_method(g, "compile", {backend, processed, spec},
                               cls.range_of("self.__backend.compile(self.__processed_module, "
                                            "self.__method_compile_spec)"));
  compiled->output()->set_type("Dict(str, Any)");
  set_attr(g, self, s::kHandles, "__handles", compiled->output(),
           cls.range_of("self.__handles = "));
  g.block()->add_output(constant(g, pickle::Value::none()));
  return fn;
}

Function lowered_getstate(const LoweredClass& cls) {
  namespace s = lowered_slots;
  Function fn;
  fn.qualified_name = cls.type + ".__getstate__";
  fn.graph = std::make_unique<Graph>();
  Graph& g = *fn.graph;
  Value* self = g.block()->add_input(cls.type);
  self->set_debug_name("self");
  fn.arguments = {{"self", cls.type, pickle::Value::none()}};
  fn.returns = {{"", std::string(kStateType), pickle::Value::none()}};
  auto range = cls.range_of("(self.__method_compile_spec, self.__processed_module, True)");
  Value* spec = get_attr(g, self, s::kCompileSpec, "__method_compile_spec", "Dict(str, Any)", range)
                    ->output();
  Value* processed = get_attr(g, self, s::kProcessed, "__processed_module", "Any", range)->output();
  Node* tuple = append(g,
                       g.create("prim::TupleConstruct",
                                {spec, processed, constant(g, pickle::Value::boolean(true))}),
                       range);
  tuple->output()->set_type(std::string(kStateType));
  g.block()->add_output(tuple->output());
  return fn;
}

}  // namespace symbolite::compiler
