#include "symbolite/compiler/graph_printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace symbolite::compiler {
namespace {

std::string value_name(const Value* v) {
  return v->debug_name().empty() ? fmt::format("%{}", v->unique())
                                 : fmt::format("%{}.{}", v->debug_name(), v->unique());
}

std::string value_list(const std::vector<Value*>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += value_name(values[i]);
  }
  return out;
}

// An attribute as PyTorch prints it: strings quoted, other values as Python would.
std::string attribute_text(const pickle::Value& value) {
  if (value.is(pickle::Value::Kind::kString)) return fmt::format("\"{}\"", value.as_string());
  if (value.is(pickle::Value::Kind::kTensor)) {
    const auto& t = value.as_tensor();
    return fmt::format("<{}Tensor [{}]>", t.storage.dtype, fmt::join(t.sizes, ", "));
  }
  return value.debug_string(120);
}

std::string attributes(const Node* node) {
  if (node->attrs().empty()) return {};
  std::string out = "[";
  bool first = true;
  for (const auto& [name, value] : node->attrs()) {
    if (!first) out += ", ";
    first = false;
    out += name + "=" + attribute_text(value);
  }
  return out + "]";
}

class Printer {
 public:
  Printer(const PrintOptions& options) : options_(options) {}

  void block(const Block* block, int indent, std::string& out) {
    for (Node* node = block->first(); node != nullptr && !node->is_return(); node = node->next()) {
      this->node(node, indent, out);
    }
  }

  void node(const Node* node, int indent, std::string& out) {
    std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    out += pad;
    if (!node->outputs().empty()) {
      for (std::size_t i = 0; i < node->outputs().size(); ++i) {
        if (i > 0) out += ", ";
        out += fmt::format("{} : {}", value_name(node->output(i)), node->output(i)->type());
      }
      out += " = ";
    }
    out += fmt::format("{}{}({})", node->kind(), attributes(node), value_list(node->inputs()));
    std::string where = annotation(node);
    if (!where.empty()) out += "  # " + where;
    out += '\n';
    for (std::size_t b = 0; b < node->blocks().size(); ++b) {
      const Block* inner = node->blocks()[b];
      out += fmt::format("{}  block{}({}):\n", pad, b, typed_list(inner->inputs()));
      block(inner, indent + 2, out);
      out += fmt::format("{}    -> ({})\n", pad, value_list(inner->outputs()));
    }
  }

  std::string annotation(const Node* node) const {
    std::string out;
    if (options_.source) out = source_location(node->source_range());
    bool hierarchy =
        options_.module_hierarchy && !options_.top_type.empty() && node->kind() != "prim::Constant";
    if (hierarchy) {
      if (!out.empty()) out += "  ";
      out += node->module_hierarchy(options_.top_type, options_.method);
    }
    return out;
  }

  static std::string typed_list(const std::vector<Value*>& values) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += ", ";
      out += fmt::format("{} : {}", value_name(values[i]), values[i]->type());
    }
    return out;
  }

 private:
  const PrintOptions& options_;
};

nlohmann::json node_json(const Node* node, const PrintOptions& options);

nlohmann::json block_json(const Block* block, const PrintOptions& options) {
  nlohmann::json nodes = nlohmann::json::array();
  for (Node* node = block->first(); node != nullptr && !node->is_return(); node = node->next()) {
    nodes.push_back(node_json(node, options));
  }
  nlohmann::json inputs = nlohmann::json::array();
  for (const Value* v : block->inputs())
    inputs.push_back({{"name", value_name(v)}, {"type", v->type()}});
  nlohmann::json outputs = nlohmann::json::array();
  for (const Value* v : block->outputs()) outputs.push_back(value_name(v));
  return {{"inputs", inputs}, {"nodes", nodes}, {"outputs", outputs}};
}

nlohmann::json source_json(const debuginfo::SourceRange& range) {
  auto at = range.file_line_col();
  if (!at || (at->filename.empty() && range.start() == range.end())) return nullptr;
  return {{"file", at->filename}, {"line", at->line}, {"column", at->column}};
}

nlohmann::json node_json(const Node* node, const PrintOptions& options) {
  nlohmann::json j;
  j["kind"] = node->kind();
  if (!node->overload().empty()) j["overload"] = node->overload();
  nlohmann::json inputs = nlohmann::json::array();
  for (const Value* v : node->inputs()) inputs.push_back(value_name(v));
  j["inputs"] = inputs;
  nlohmann::json outputs = nlohmann::json::array();
  for (const Value* v : node->outputs())
    outputs.push_back({{"name", value_name(v)}, {"type", v->type()}});
  j["outputs"] = outputs;
  if (!node->attrs().empty()) {
    nlohmann::json attrs = nlohmann::json::object();
    for (const auto& [name, value] : node->attrs()) attrs[name] = attribute_text(value);
    j["attributes"] = attrs;
  }
  j["source"] = source_json(node->source_range());
  if (node->origins().size() > 1) {
    nlohmann::json fused = nlohmann::json::array();
    for (const auto& origin : node->origins()) fused.push_back(source_json(origin.range));
    j["fused_sources"] = fused;
  }
  if (!options.top_type.empty())
    j["module_hierarchy"] = node->module_hierarchy(options.top_type, options.method);
  if (!node->blocks().empty()) {
    nlohmann::json blocks = nlohmann::json::array();
    for (const Block* b : node->blocks()) blocks.push_back(block_json(b, options));
    j["blocks"] = blocks;
  }
  return j;
}

}  // namespace

std::string source_location(const debuginfo::SourceRange& range) {
  auto at = range.file_line_col();
  // PyTorch records an empty range in an unnamed source for nodes it made up (attribute
  // reads, list constructions): nothing to point at.
  if (!at || (at->filename.empty() && range.start() == range.end())) return {};
  return fmt::format("{}:{}:{}", at->filename, at->line, at->column);
}

std::string print_graph(const Graph& graph, const PrintOptions& options) {
  Printer printer(options);
  std::string out = fmt::format("graph({}):\n", Printer::typed_list(graph.inputs()));
  printer.block(graph.block(), 1, out);
  out += fmt::format("  return ({})\n", value_list(graph.outputs()));
  return out;
}

std::string print_function(const Function& function, const std::string& top_type) {
  PrintOptions options;
  options.top_type = top_type;
  options.method = function.short_name();
  return fmt::format("{}:\n{}", function.qualified_name, print_graph(*function.graph, options));
}

nlohmann::json function_to_json(const Function& function, const std::string& top_type) {
  PrintOptions options;
  options.top_type = top_type;
  options.method = function.short_name();
  nlohmann::json j = block_json(function.graph->block(), options);
  j["name"] = function.qualified_name;
  return j;
}

}  // namespace symbolite::compiler
