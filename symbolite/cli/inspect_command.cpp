#include "symbolite/cli/inspect_command.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/mobile/operator_upgraders.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/support/json_text.h"
#include "symbolite/support/printable_text.h"

namespace symbolite::cli {
namespace {

struct InspectOptions {
  std::string model;
  bool json = false;
};

std::size_t count_opcode(const mobile::BytecodeFunction& fn, mobile::OpCode opcode) {
  std::size_t n = 0;
  for (const auto& ins : fn.instructions) n += ins.op == opcode;
  return n;
}

nlohmann::json module_json(const mobile::ModuleNode& node) {
  nlohmann::json children = nlohmann::json::array();
  for (const auto& child : node.children) children.push_back(module_json(child));
  nlohmann::json out = {{"name", node.name},
                        {"type", node.type},
                        {"tensors", node.tensors},
                        {"tensor_elements", node.tensor_elements},
                        {"children", children}};
  if (node.lowered) {
    out["lowered"] = {{"backend", node.lowered->backend},
                      {"compile_spec_methods", node.lowered->compile_spec_methods},
                      {"processed_kind", node.lowered->processed_kind},
                      {"processed_bytes", node.lowered->processed_bytes}};
  }
  return out;
}

// The upgrader PyTorch 1.13 runs for `name` in this file, or null (mobile/operator_upgraders.h).
const mobile::OperatorUpgrader* upgrader_for(const mobile::ModelInfo& model,
                                             const std::string& name) {
  return model.operator_version ? mobile::find_upgrader(name, *model.operator_version) : nullptr;
}

// Whether `run` has a kernel for `name`: its upgrader's operators, when it is upgraded.
bool implemented(const mobile::ModelInfo& model, const std::string& name) {
  const auto* upgrader = upgrader_for(model, name);
  if (upgrader == nullptr) return ops::default_registry().find(name) != nullptr;
  return std::all_of(upgrader->calls.begin(), upgrader->calls.end(), [](std::string_view op) {
    return ops::default_registry().find(op) != nullptr;
  });
}

// "aten::div.Tensor -> div_Tensor_0_3" for each operator the file's operator version upgrades,
// in order of first use.
std::vector<std::pair<std::string, std::string>> upgraded_operators(
    const mobile::ModelInfo& model) {
  std::vector<std::pair<std::string, std::string>> upgraded;
  if (!model.bytecode) return upgraded;
  for (const auto& fn : model.bytecode->functions) {
    for (const auto& op : fn.operators) {
      std::string name = op.full_name();
      const auto* upgrader = upgrader_for(model, name);
      if (upgrader == nullptr || std::find_if(upgraded.begin(), upgraded.end(), [&](const auto& u) {
                                   return u.first == name;
                                 }) != upgraded.end()) {
        continue;
      }
      upgraded.emplace_back(std::move(name), upgrader->def.name);
    }
  }
  return upgraded;
}

// The operators the bytecode names that symbolite has no kernel for, in order of first use:
// what `run` would refuse at load, said before anyone tries.
std::vector<std::string> missing_operators(const mobile::ModelInfo& model) {
  std::vector<std::string> missing;
  if (!model.bytecode) return missing;
  for (const auto& fn : model.bytecode->functions) {
    for (const auto& op : fn.operators) {
      std::string name = op.full_name();
      if (!implemented(model, name) &&
          std::find(missing.begin(), missing.end(), name) == missing.end()) {
        missing.push_back(std::move(name));
      }
    }
  }
  return missing;
}

nlohmann::json to_json(const mobile::ModelInfo& model) {
  nlohmann::json upgraded = model.bytecode ? nlohmann::json::array() : nlohmann::json(nullptr);
  for (const auto& [op, upgrader] : upgraded_operators(model)) {
    upgraded.push_back({{"operator", op}, {"upgrader", upgrader}});
  }
  nlohmann::json methods = nlohmann::json::array();
  if (model.bytecode) {
    for (const auto& fn : model.bytecode->functions) {
      nlohmann::json names = nlohmann::json::array();
      for (const auto& op : fn.operators) names.push_back(op.full_name());
      methods.push_back({{"name", fn.qualified_name},
                         {"instructions", fn.instructions.size()},
                         {"operators", fn.operators.size()},
                         {"operator_names", names},
                         {"operator_calls", count_opcode(fn, mobile::OpCode::kOp)},
                         {"constants", fn.constants.size()},
                         {"register_size", fn.register_size}});
    }
  }
  const auto& debug = model.debug;
  nlohmann::json ranges = nlohmann::json::array();
  for (const auto& f : debug.source_range_files) {
    ranges.push_back({{"record", f.record},
                      {"size", f.size},
                      {"rows", f.rows},
                      {"format", f.string_table_format ? "string_table" : "legacy"}});
  }
  nlohmann::json records = nlohmann::json::array();
  for (const auto& r : model.archive.records()) {
    records.push_back({{"name", r}, {"size", model.archive.record_size(r).value_or(0)}});
  }
  nlohmann::json out = {
      {"schema_version", 1},
      {"model", model.archive.display_name()},
      {"record_folder", model.archive.record_folder()},
      {"model_id", to_hex(mobile::compute_model_id(model.archive))},
      {"records", records},
      {"bytecode_version", model.bytecode ? nlohmann::json(model.bytecode->version) : nullptr},
      {"operator_version",
       model.operator_version ? nlohmann::json(*model.operator_version) : nullptr},
      {"top_type", model.top_type()},
      {"methods", methods},
      {"missing_operators",
       model.bytecode ? nlohmann::json(missing_operators(model)) : nlohmann::json(nullptr)},
      {"upgraded_operators", upgraded},
      {"modules", module_json(model.modules)},
      {"debug_info",
       {{"source_range_files", ranges},
        {"callstack_debug_map",
         debug.has_callstack_map
             ? nlohmann::json{{"size", debug.callstack_map_size},
                              {"handles", debug.table.size()},
                              {"unresolved_source_range_tags",
                               debug.callstack_stats.unresolved_tags},
                              {"call_stack_nodes", debug.callstack_stats.shared_call_stacks}}
             : nlohmann::json(nullptr)},
        {"mobile_debug_handles",
         debug.has_handle_table
             ? nlohmann::json{{"size", debug.handle_table_size},
                              {"instructions", debug.handles.instruction_count()}}
             : nlohmann::json(nullptr)}}}};
  return out;
}

void print_modules(const mobile::ModuleNode& node, int depth) {
  // Names from the file stay on their line (printable_text escapes the rest on output).
  std::string label = depth == 0 ? "top" : single_line(node.name);
  std::string tensors =
      node.tensors ? fmt::format("  [{} tensors, {} elements]", node.tensors, node.tensor_elements)
                   : std::string();
  std::string lowered =
      node.lowered
          ? fmt::format(
                "  [lowered to backend '{}': {}, payload {} bytes]",
                single_line(node.lowered->backend),
                single_line(fmt::format("{}", fmt::join(node.lowered->compile_spec_methods, ", "))),
                node.lowered->processed_bytes)
          : std::string();
  fmt::print("  {:{}}{} ({}){}{}\n", "", depth * 2, label, single_line(node.type), tensors,
             lowered);
  for (const auto& child : node.children) print_modules(child, depth + 1);
}

void print_text(const mobile::ModelInfo& model) {
  const auto& archive = model.archive;
  fmt::print("model: {}\n", single_line(archive.display_name()));
  fmt::print("archive: record folder '{}', {} records\n", single_line(archive.record_folder()),
             archive.records().size());
  fmt::print("model id: {}\n", to_hex(mobile::compute_model_id(archive)));
  if (model.bytecode) {
    fmt::print("bytecode version: {}\n", model.bytecode->version);
    if (model.operator_version) {
      fmt::print("operator version: {}\n", *model.operator_version);
      std::vector<std::string> upgraded;
      for (const auto& [op, upgrader] : upgraded_operators(model)) {
        upgraded.push_back(fmt::format("{} -> {}", op, upgrader));
      }
      if (!upgraded.empty()) {
        fmt::print("upgraded operators (old operator version): {}\n",
                   single_line(fmt::format("{}", fmt::join(upgraded, ", "))));
      }
    }
    fmt::print("methods:\n");
    for (const auto& fn : model.bytecode->functions) {
      fmt::print("  {}  {} instructions, {} operators, {} operator calls\n",
                 single_line(fn.qualified_name), fn.instructions.size(), fn.operators.size(),
                 count_opcode(fn, mobile::OpCode::kOp));
    }
    auto missing = missing_operators(model);
    if (missing.empty()) {
      fmt::print("operators: all implemented by symbolite\n");
    } else {
      fmt::print(
          "operators: {} not implemented by symbolite (a run fails where it reaches one): {}\n",
          missing.size(), single_line(fmt::format("{}", fmt::join(missing, ", "))));
    }
  } else {
    fmt::print("bytecode: none (a full TorchScript archive, not a lite-interpreter model)\n");
  }
  fmt::print("modules:\n");
  print_modules(model.modules, 0);

  const auto& debug = model.debug;
  fmt::print("debug info:\n");
  if (debug.has_callstack_map) {
    fmt::print("  callstack_debug_map.pkl: {} bytes, {} handles, {} call-stack nodes",
               debug.callstack_map_size, debug.table.size(),
               debug.callstack_stats.shared_call_stacks);
    if (debug.callstack_stats.unresolved_tags) {
      fmt::print(", {} source-range tags without a range (symbolicated as unknown frames)",
                 debug.callstack_stats.unresolved_tags);
    }
    fmt::print("\n");
  } else {
    fmt::print(
        "  callstack_debug_map.pkl: absent (handles cannot be symbolicated from this file)\n");
  }
  if (debug.has_handle_table) {
    fmt::print("  mobile_debug_handles.pkl: {} bytes, {} instructions\n", debug.handle_table_size,
               debug.handles.instruction_count());
  } else {
    fmt::print("  mobile_debug_handles.pkl: absent\n");
  }
  for (const auto& f : debug.source_range_files) {
    fmt::print("  {}: {} bytes, {} ranges, {} format\n", single_line(f.record), f.size, f.rows,
               f.string_table_format ? "string-table" : "legacy");
  }
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InspectOptions>();
  auto* cmd = app.add_subcommand("inspect", "Show what a model archive holds");
  cmd->add_option("model", options->model, "Model archive (.ptl or .pt)")->required();
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    // Load everything before printing anything, so a bad file prints no half result.
    auto model = mobile::ModelInfo::load(options->model);
    if (options->json) {
      std::cout << json_text(to_json(model), 2) << "\n";
    } else {
      print_text(model);
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
