#include "symbolite/cli/graph_command.h"

#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "symbolite/backends/xnnpack/xnnpack_support.h"
#include "symbolite/cli/exit_codes.h"
#include "symbolite/compiler/graph_printer.h"
#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/partitioner.h"
#include "symbolite/compiler/passes/pass_registry.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/json_text.h"

namespace symbolite::cli {
namespace {

struct GraphOptions {
  std::string model;
  std::string method;
  std::vector<std::string> passes;
  std::string partition;  // a backend name: show what it would take
  bool json = false;
};

// The functions to print: all, or the one named by its short or qualified name.
std::vector<const compiler::Function*> selected(const compiler::Program& program,
                                                const std::string& method) {
  std::vector<const compiler::Function*> out;
  std::vector<std::string> names;
  for (const auto& fn : program.functions) {
    names.push_back(fn.short_name());
    if (method.empty() || fn.short_name() == method || fn.qualified_name == method)
      out.push_back(&fn);
  }
  if (out.empty()) {
    throw Error(ErrorKind::kUsage, fmt::format("the model has no method '{}' (it has: {})", method,
                                               fmt::join(names, ", ")));
  }
  return out;
}

const compiler::BackendSupport& backend_named(const std::string& name) {
  static const backends::XnnpackSupport xnnpack;
  if (name == xnnpack.name()) return xnnpack;
  throw Error(ErrorKind::kUsage, fmt::format("unknown backend '{}' (known: xnnpack)", name));
}

std::string node_line(const compiler::Node* node, const compiler::Program& program,
                      const compiler::Function& fn) {
  std::string where = compiler::source_location(node->source_range());
  return fmt::format("{}{}{}  {}", node->qualified_kind(), where.empty() ? "" : "  ", where,
                     node->module_hierarchy(program.top_type, fn.short_name()));
}

std::string value_names(const std::vector<compiler::Value*>& values) {
  std::vector<std::string> names;
  names.reserve(values.size());
  for (const auto* v : values) names.push_back(fmt::format("%{}", v->unique()));
  return fmt::format("{}", fmt::join(names, ", "));
}

// What `backend` would take of each function, and why it leaves the rest.
void print_partitions(const compiler::Program& program,
                      const std::vector<const compiler::Function*>& functions,
                      const compiler::BackendSupport& backend, bool json) {
  nlohmann::json out = {
      {"schema_version", 1}, {"backend", backend.name()}, {"top_type", program.top_type}};
  nlohmann::json list = nlohmann::json::array();
  std::string text;
  for (const auto* fn : functions) {
    auto plan = compiler::partition_graph(*fn->graph, backend);
    std::size_t taken = 0;
    for (const auto& p : plan.partitions) taken += p.operators;
    text += fmt::format(
        "{}: {} partition(s) for {}, {} operator(s) taken, {} left to the interpreter\n",
        fn->qualified_name, plan.partitions.size(), backend.name(), taken, plan.rejected.size());
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& p : plan.partitions) {
      text += fmt::format("  partition {}: {} operator(s), inputs ({}), outputs ({})\n", p.id,
                          p.operators, value_names(p.inputs), value_names(p.outputs));
      nlohmann::json nodes = nlohmann::json::array();
      for (const auto* node : p.nodes) {
        if (compiler::is_static_argument(*node)) continue;
        text += "    " + node_line(node, program, *fn) + "\n";
        nodes.push_back(
            {{"kind", node->qualified_kind()},
             {"source", compiler::source_location(node->source_range())},
             {"module_hierarchy", node->module_hierarchy(program.top_type, fn->short_name())}});
      }
      parts.push_back({{"id", p.id},
                       {"operators", p.operators},
                       {"inputs", p.inputs.size()},
                       {"outputs", p.outputs.size()},
                       {"nodes", nodes}});
    }
    nlohmann::json rejected = nlohmann::json::array();
    if (!plan.rejected.empty()) text += "  left to the interpreter:\n";
    for (const auto& r : plan.rejected) {
      text += fmt::format("    {}\n      {}\n", node_line(r.node, program, *fn), r.reason);
      rejected.push_back(
          {{"kind", r.node->qualified_kind()},
           {"source", compiler::source_location(r.node->source_range())},
           {"module_hierarchy", r.node->module_hierarchy(program.top_type, fn->short_name())},
           {"reason", r.reason}});
    }
    list.push_back({{"name", fn->qualified_name}, {"partitions", parts}, {"rejected", rejected}});
  }
  out["functions"] = list;
  if (json) {
    std::cout << json_text(out, 2) << "\n";
  } else {
    std::cout << text;
  }
}

}  // namespace

void add_graph_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<GraphOptions>();
  auto* cmd = app.add_subcommand("graph", "Print a model's IR with each node's source and module");
  cmd->add_option("model", options->model, "Model archive (.ptl)")->required();
  cmd->add_option("--method", options->method, "Only this method (e.g. forward)");
  cmd->add_option("--passes", options->passes, "Run these passes first (comma-separated; 'all')")
      ->delimiter(',');
  cmd->add_option("--partition", options->partition,
                  "Show what a delegate backend would take (xnnpack) and why it leaves the rest");
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    const compiler::BackendSupport* backend =
        options->partition.empty() ? nullptr : &backend_named(options->partition);
    auto model = mobile::ModelInfo::load(options->model);
    compiler::Program program = compiler::lift(model);
    compiler::run_passes(program, options->passes);
    auto functions = selected(program, options->method);
    if (backend != nullptr) {
      print_partitions(program, functions, *backend, options->json);
    } else if (options->json) {
      nlohmann::json out = {{"schema_version", 1},
                            {"model", model.archive.display_name()},
                            {"top_type", program.top_type},
                            {"bytecode_version", program.bytecode_version}};
      nlohmann::json list = nlohmann::json::array();
      for (const auto* fn : functions)
        list.push_back(compiler::function_to_json(*fn, program.top_type));
      out["functions"] = list;
      std::cout << json_text(out, 2) << "\n";
    } else {
      std::string text;
      for (const auto* fn : functions) {
        if (!text.empty()) text += "\n";
        text += compiler::print_function(*fn, program.top_type);
      }
      std::cout << text;
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
