#include "symbolite/cli/explain_command.h"

#include <chrono>
#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/backend_choice.h"
#include "symbolite/cli/exit_codes.h"
#include "symbolite/compiler/lowering/lowering.h"
#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/delegate/delegate_backend.h"
#include "symbolite/support/error.h"

namespace symbolite::cli {
namespace {

struct ExplainOptions {
  std::string model;
  std::string backend;
  std::string method = "forward";
  std::vector<std::string> modules;
  bool json = false;
};

// Compiling one lowered module's payload, as the runtime does at load.
struct CompileResult {
  double ms = 0;
  std::string error;             // empty when it compiled
  std::string module_hierarchy;  // of the delegate node at fault
  std::string traceback;
};

CompileResult compile_one(const std::string& backend, const mobile::LoadedModel::PendingSetState& call,
                          const debuginfo::Symbolicator* symbolicator, const std::string& method) {
  CompileResult result;
  auto instance = runtime::create_delegate_backend(backend);
  if (!instance) {
    result.error = fmt::format("this symbolite has no backend '{}' to compile with", backend);
    return result;
  }
  const auto& state = call.state.to_tuple();
  auto start = std::chrono::steady_clock::now();
  try {
    instance->compile(state.at(1), state.at(0));
  } catch (const runtime::DelegateFailure& e) {
    result.error = fmt::format("{}: {}", e.python_class(), e.message());
    if (symbolicator != nullptr) {
      auto s = symbolicator->symbolicate_in(e.handle(), method);
      result.module_hierarchy = s.module_hierarchy;
      result.traceback = s.traceback;
    }
  } catch (const Error& e) {
    result.error = e.what();
  }
  result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string operator_summary(const std::vector<std::string>& operators) {
  std::map<std::string, int> counts;
  for (const auto& op : operators) ++counts[op];
  std::string out;
  for (const auto& [op, n] : counts) out += fmt::format("{}{} x{}", out.empty() ? "" : ", ", op, n);
  return out;
}

}  // namespace

void add_explain_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ExplainOptions>();
  auto* cmd = app.add_subcommand("explain", "Show how a model would be lowered to a delegate backend, and why it breaks where it does");
  cmd->add_option("model", options->model, "Model (.ptl)")->required();
  cmd->add_option("--backend", options->backend, "Delegate backend (as for lower)")->required();
  cmd->add_option("--module", options->modules, "Only the nodes of this submodule (repeatable)");
  cmd->add_option("--method", options->method, "Method of the top module (default: forward)");
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    auto support = backend_support(options->backend);
    compiler::LoweringOptions lowering;
    lowering.backend = options->backend;
    lowering.modules = options->modules;
    lowering.method = options->method;
    auto lowered = compiler::lower_model_bytes(options->model, *support, lowering);
    const auto& report = lowered.report;

    // Load the lowered bytes (no module is set up) and compile each payload by itself.
    auto owner = std::make_shared<std::vector<std::uint8_t>>(std::move(lowered.bytes));
    auto model = mobile::LoadedModel::load_bytes(Bytes(owner, owner->data(), owner->size()), options->model);
    std::unique_ptr<debuginfo::Symbolicator> symbolicator;
    if (model.debug) symbolicator = std::make_unique<debuginfo::Symbolicator>(model.debug);
    std::vector<CompileResult> compiled;
    for (const auto& call : model.pending_setstate) {
      compiled.push_back(compile_one(options->backend, call, symbolicator.get(), options->method));
    }

    std::size_t delegated = 0, kept = 0;
    for (const auto& p : report.partitions) delegated += p.operators.size();
    for (const auto& r : report.rejected) kept += r.node.starts_with("aten::") ? 1 : 0;
    const double share = delegated + kept == 0 ? 0.0 : 100.0 * static_cast<double>(delegated) /
                                                           static_cast<double>(delegated + kept);
    if (options->json) {
      nlohmann::json partitions = nlohmann::json::array();
      for (std::size_t i = 0; i < report.partitions.size(); ++i) {
        const auto& p = report.partitions[i];
        nlohmann::json entry = {{"attribute", p.attribute}, {"operators", p.operators},
                                {"first_module_hierarchy", p.module_hierarchies.empty() ? "" : p.module_hierarchies.front()},
                                {"inputs", p.inputs}, {"outputs", p.outputs}, {"weights", p.weights}};
        if (i < compiled.size()) {
          entry["compile_ms"] = compiled[i].ms;
          entry["compile_error"] = compiled[i].error.empty() ? nlohmann::json() : nlohmann::json(compiled[i].error);
          if (!compiled[i].module_hierarchy.empty()) entry["compile_error_module_hierarchy"] = compiled[i].module_hierarchy;
        }
        partitions.push_back(entry);
      }
      nlohmann::json breaks = nlohmann::json::array();
      for (const auto& r : report.rejected) {
        breaks.push_back({{"node", r.node}, {"reason", r.reason}, {"source", r.source},
                          {"module_hierarchy", r.module_hierarchy}});
      }
      std::cout << nlohmann::json({{"schema_version", 1}, {"model", options->model}, {"backend", options->backend},
                                   {"method", options->method}, {"partitions", partitions}, {"breaks", breaks},
                                   {"operators_delegated", delegated}, {"operators_kept", kept},
                                   {"delegated_percent", share}})
                       .dump(2)
                << "\n";
    } else {
      fmt::print("{} -> {} ({}): {} partition{}, {} of {} operators delegated ({:.1f} %)\n", options->model,
                 options->backend, options->method, report.partitions.size(),
                 report.partitions.size() == 1 ? "" : "s", delegated, delegated + kept, share);
      for (std::size_t i = 0; i < report.partitions.size(); ++i) {
        const auto& p = report.partitions[i];
        fmt::print("\n{}: {} operators, {} inputs, {} outputs, {} weights\n  {}\n", p.attribute,
                   p.operators.size(), p.inputs, p.outputs, p.weights, operator_summary(p.operators));
        if (!p.module_hierarchies.empty()) fmt::print("  from {}\n", p.module_hierarchies.front());
        if (i < compiled.size()) {
          if (compiled[i].error.empty()) {
            fmt::print("  compiles in {:.2f} ms\n", compiled[i].ms);
          } else {
            fmt::print("  FAILS TO COMPILE: {}\n", compiled[i].error);
            if (!compiled[i].module_hierarchy.empty()) {
              fmt::print("  Module hierarchy:{}\n{}", compiled[i].module_hierarchy, compiled[i].traceback);
            }
          }
        }
      }
      if (!report.rejected.empty()) fmt::print("\nbreaks ({}):\n", report.rejected.size());
      for (const auto& r : report.rejected) {
        fmt::print("  {}{}: {}\n    {}\n", r.node, r.source.empty() ? "" : " at " + r.source, r.reason,
                   r.module_hierarchy);
      }
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
