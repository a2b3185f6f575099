#include "symbolite/cli/check_command.h"

#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/mobile/model_check.h"
#include "symbolite/support/json_text.h"

namespace symbolite::cli {
namespace {

struct CheckOptions {
  std::string model;
  std::string sidecar;
  bool json = false;
  bool strict = false;
};

// In text, at most this many findings of one code are listed; JSON has them all.
constexpr std::size_t kShownPerCode = 10;

std::string_view severity_name(mobile::CheckSeverity s) {
  return s == mobile::CheckSeverity::kError ? "error" : "warning";
}

std::string where(const mobile::CheckFinding& f) {
  std::string out = f.function;
  if (f.instruction) out += fmt::format(" instruction {}", *f.instruction);
  if (f.handle) out += fmt::format("{}handle {}", out.empty() ? "" : ", ", *f.handle);
  if (!f.source.empty()) out += fmt::format(" ({})", f.source);
  return out;
}

void print_text(const CheckOptions& o, const mobile::CheckReport& r) {
  fmt::print("{}: {} methods, {} instructions, {} debug handles checked{}\n", o.model, r.functions,
             r.instructions, r.handles, o.sidecar.empty() ? "" : " against " + o.sidecar);
  std::map<std::string, std::size_t> shown;
  for (const auto& f : r.findings) {
    if (++shown[f.code] > kShownPerCode) continue;
    std::string at = where(f);
    fmt::print("{} [{}]{}{}: {}\n", severity_name(f.severity), f.code, at.empty() ? "" : " ", at,
               f.message);
    if (!f.module_hierarchy.empty()) fmt::print("  module hierarchy: {}\n", f.module_hierarchy);
    fmt::print("  fix: {}\n", f.advice);
  }
  for (const auto& [code, n] : shown) {
    if (n > kShownPerCode)
      fmt::print("... and {} more [{}] (--json lists all)\n", n - kShownPerCode, code);
  }
  std::size_t errors = r.count(mobile::CheckSeverity::kError);
  std::size_t warnings = r.count(mobile::CheckSeverity::kWarning);
  if (errors == 0 && warnings == 0) {
    fmt::print("ok: every instruction's handle resolves to a module hierarchy and source\n");
  } else {
    fmt::print("{} error{}, {} warning{}\n", errors, errors == 1 ? "" : "s", warnings,
               warnings == 1 ? "" : "s");
  }
}

nlohmann::json to_json(const CheckOptions& o, const mobile::CheckReport& r, bool passed) {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : r.findings) {
    auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    auto str = [](const std::string& s) {
      return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
    };
    findings.push_back({{"severity", severity_name(f.severity)},
                        {"code", f.code},
                        {"function", str(f.function)},
                        {"instruction", opt(f.instruction)},
                        {"handle", opt(f.handle)},
                        {"source", str(f.source)},
                        {"module_hierarchy", str(f.module_hierarchy)},
                        {"message", f.message},
                        {"advice", f.advice}});
  }
  return {{"schema_version", 1},
          {"model", o.model},
          {"sidecar", o.sidecar.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.sidecar)},
          {"strict", o.strict},
          {"passed", passed},
          {"methods", r.functions},
          {"instructions", r.instructions},
          {"handles", r.handles},
          {"errors", r.count(mobile::CheckSeverity::kError)},
          {"warnings", r.count(mobile::CheckSeverity::kWarning)},
          {"findings", std::move(findings)}};
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand(
      "check", "Check before shipping that a model's debug info will answer for every instruction");
  cmd->add_option("model", options->model, "Model (.ptl), full or stripped")->required();
  cmd->add_option("--debug", options->sidecar,
                  "Check against this sidecar (made by `symbolite split`)");
  cmd->add_flag("--strict", options->strict, "Warnings fail the check too");
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    mobile::CheckReport report = mobile::check_model(options->model, options->sidecar);
    const bool passed = report.count(mobile::CheckSeverity::kError) == 0 &&
                        (!options->strict || report.count(mobile::CheckSeverity::kWarning) == 0);
    if (options->json) {
      std::cout << json_text(to_json(*options, report, passed), 2) << "\n";
    } else {
      print_text(*options, report);
    }
    // Findings are the command's answer, printed on stdout; failing the gate is exit 1.
    exit_code = passed ? kExitOk : kExitModelError;
  });
}

}  // namespace symbolite::cli
