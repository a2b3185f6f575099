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
#include "symbolite/profiler/event_sink.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/delegate/delegate_backend.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/support/error.h"
#include "symbolite/support/json_text.h"

namespace symbolite::cli {
namespace {

struct ExplainOptions {
  std::string model;
  std::string backend;
  std::string method = "forward";
  std::vector<std::string> modules;
  std::vector<std::string> inputs;
  bool json = false;
};

// FLOPs of one run of the lowered model on the user's inputs (operators with a FLOP formula,
// profiler/flops.h), in all and per partition.
struct FlopCount {
  bool measured = false;
  std::string note;  // why not measured
  std::int64_t total = 0;
  std::vector<std::int64_t> per_partition;
  std::int64_t delegated() const {
    std::int64_t sum = 0;
    for (auto f : per_partition) sum += f;
    return sum;
  }
};

FlopCount count_flops(const mobile::LoadedModel& model, const compiler::LoweringReport& report,
                      const ExplainOptions& options) {
  FlopCount count;
  if (options.inputs.empty()) return count;
  std::vector<ops::IValue> inputs;
  for (const auto& path : options.inputs) inputs.push_back(runtime::read_input_file(path));
  profiler::RecordingSink events(profiler::kDetailFlops);
  try {
    runtime::Interpreter interpreter(model);
    profiler::ProfilingScope scope(events);
    interpreter.run_method(options.method, inputs);
  } catch (const runtime::RunError& e) {
    count.note = "the lowered model does not run: " + e.details().message;
    return count;
  }
  std::map<debuginfo::DebugHandle, std::size_t> partition_of;
  for (std::size_t i = 0; i < report.partitions.size(); ++i) {
    for (auto h : report.partitions[i].handles) partition_of[h] = i;
  }
  count.per_partition.assign(report.partitions.size(), 0);
  for (const auto& e : events.events()) {
    if (e.flops < 0) continue;
    count.total += e.flops;
    if (e.delegate_call == debuginfo::kInvalidDebugHandle) continue;
    if (auto it = partition_of.find(e.handle); it != partition_of.end())
      count.per_partition[it->second] += e.flops;
  }
  count.measured = true;
  return count;
}

// "512 FLOPs", "3.6 MFLOPs", "1.82 GFLOPs".
std::string flops_text(std::int64_t flops) {
  const double f = static_cast<double>(flops);
  if (f >= 1e9) return fmt::format("{:.3g} GFLOPs", f / 1e9);
  if (f >= 1e6) return fmt::format("{:.3g} MFLOPs", f / 1e6);
  if (f >= 1e3) return fmt::format("{:.3g} kFLOPs", f / 1e3);
  return fmt::format("{} FLOPs", flops);
}

double percent(std::int64_t part, std::int64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// Compiling one lowered module's payload, as the runtime does at load.
struct CompileResult {
  double ms = 0;
  std::string error;             // empty when it compiled
  std::string module_hierarchy;  // of the delegate node at fault
  std::string traceback;
};

CompileResult compile_one(const std::string& backend,
                          const mobile::LoadedModel::PendingSetState& call,
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
    result.error = e.text();
  }
  result.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
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
  auto* cmd = app.add_subcommand(
      "explain",
      "Show how a model would be lowered to a delegate backend, and why it breaks where it does");
  cmd->add_option("model", options->model, "Model (.ptl)")->required();
  cmd->add_option("--backend", options->backend, "Delegate backend (as for lower)")->required();
  cmd->add_option("--module", options->modules, "Only the nodes of this submodule (repeatable)");
  cmd->add_option("--method", options->method, "Method of the top module (default: forward)");
  cmd->add_option(
      "--input", options->inputs,
      "Inputs in order (.npy or .json): run the lowered model once to count the FLOPs delegated");
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
    auto model = mobile::LoadedModel::load_bytes(Bytes::from_vector(std::move(lowered.bytes)),
                                                 options->model);
    std::unique_ptr<debuginfo::Symbolicator> symbolicator;
    if (model.debug) symbolicator = std::make_unique<debuginfo::Symbolicator>(model.debug);
    std::vector<CompileResult> compiled;
    for (const auto& call : model.pending_setstate) {
      compiled.push_back(compile_one(options->backend, call, symbolicator.get(), options->method));
    }

    bool all_compiled = true;
    for (const auto& c : compiled) all_compiled = all_compiled && c.error.empty();
    FlopCount flops;
    if (!options->inputs.empty() && !all_compiled) {
      flops.note = "a partition does not compile";
    } else {
      flops = count_flops(model, report, *options);
    }

    std::size_t delegated = 0, kept = 0;
    for (const auto& p : report.partitions) delegated += p.operators.size();
    for (const auto& r : report.rejected) kept += r.node.starts_with("aten::") ? 1 : 0;
    const double share = delegated + kept == 0 ? 0.0
                                               : 100.0 * static_cast<double>(delegated) /
                                                     static_cast<double>(delegated + kept);
    if (options->json) {
      nlohmann::json partitions = nlohmann::json::array();
      for (std::size_t i = 0; i < report.partitions.size(); ++i) {
        const auto& p = report.partitions[i];
        nlohmann::json entry = {{"attribute", p.attribute},
                                {"operators", p.operators},
                                {"first_module_hierarchy",
                                 p.module_hierarchies.empty() ? "" : p.module_hierarchies.front()},
                                {"inputs", p.inputs},
                                {"outputs", p.outputs},
                                {"weights", p.weights}};
        if (flops.measured) entry["flops"] = flops.per_partition[i];
        if (i < compiled.size()) {
          entry["compile_ms"] = compiled[i].ms;
          entry["compile_error"] =
              compiled[i].error.empty() ? nlohmann::json() : nlohmann::json(compiled[i].error);
          if (!compiled[i].module_hierarchy.empty())
            entry["compile_error_module_hierarchy"] = compiled[i].module_hierarchy;
        }
        partitions.push_back(entry);
      }
      nlohmann::json breaks = nlohmann::json::array();
      for (const auto& r : report.rejected) {
        breaks.push_back({{"node", r.node},
                          {"reason", r.reason},
                          {"source", r.source},
                          {"module_hierarchy", r.module_hierarchy}});
      }
      nlohmann::json out = {{"schema_version", 1},
                            {"model", options->model},
                            {"backend", options->backend},
                            {"method", options->method},
                            {"partitions", partitions},
                            {"breaks", breaks},
                            {"operators_delegated", delegated},
                            {"operators_kept", kept},
                            {"delegated_percent", share},
                            {"flops", nullptr}};
      if (flops.measured) {
        out["flops"] = {{"total", flops.total},
                        {"delegated", flops.delegated()},
                        {"delegated_percent", percent(flops.delegated(), flops.total)}};
      } else if (!flops.note.empty()) {
        out["flops"] = {{"error", flops.note}};
      }
      std::cout << json_text(out, 2) << "\n";
    } else {
      fmt::print("{} -> {} ({}): {} partition{}, {} of {} operators delegated ({:.1f} %)\n",
                 options->model, options->backend, options->method, report.partitions.size(),
                 report.partitions.size() == 1 ? "" : "s", delegated, delegated + kept, share);
      if (flops.measured) {
        fmt::print("{} of {} delegated ({:.1f} %) on the inputs given\n",
                   flops_text(flops.delegated()), flops_text(flops.total),
                   percent(flops.delegated(), flops.total));
      } else if (!flops.note.empty()) {
        fmt::print("FLOPs not counted: {}\n", flops.note);
      }
      for (std::size_t i = 0; i < report.partitions.size(); ++i) {
        const auto& p = report.partitions[i];
        fmt::print("\n{}: {} operators, {} inputs, {} outputs, {} weights\n  {}\n", p.attribute,
                   p.operators.size(), p.inputs, p.outputs, p.weights,
                   operator_summary(p.operators));
        if (!p.module_hierarchies.empty()) fmt::print("  from {}\n", p.module_hierarchies.front());
        if (flops.measured) {
          fmt::print("  {} ({:.1f} % of the model's)\n", flops_text(flops.per_partition[i]),
                     percent(flops.per_partition[i], flops.total));
        }
        if (i < compiled.size()) {
          if (compiled[i].error.empty()) {
            fmt::print("  compiles in {:.2f} ms\n", compiled[i].ms);
          } else {
            fmt::print("  FAILS TO COMPILE: {}\n", compiled[i].error);
            if (!compiled[i].module_hierarchy.empty()) {
              fmt::print("  Module hierarchy:{}\n{}", compiled[i].module_hierarchy,
                         compiled[i].traceback);
            }
          }
        }
      }
      if (!report.rejected.empty()) fmt::print("\nbreaks ({}):\n", report.rejected.size());
      for (const auto& r : report.rejected) {
        fmt::print("  {}{}: {}\n    {}\n", r.node, r.source.empty() ? "" : " at " + r.source,
                   r.reason, r.module_hierarchy);
      }
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
