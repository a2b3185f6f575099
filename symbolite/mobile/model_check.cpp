#include "symbolite/mobile/model_check.h"

#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "symbolite/debuginfo/sidecar_reader.h"
#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/mobile/delegate_node_sites.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/error.h"

namespace symbolite::mobile {
namespace {

using debuginfo::DebugHandle;
using debuginfo::SymbolicationStatus;

// The node's own source line ("model_defs.py:42"), the innermost known frame.
std::string source_of(const debuginfo::Symbolication& s) {
  for (auto frame = s.frames.rbegin(); frame != s.frames.rend(); ++frame) {
    if (auto at = frame->range.file_line_col()) return fmt::format("{}:{}", at->filename, at->line);
  }
  return {};
}

std::string joined(const std::vector<std::string>& notes) {
  std::string out;
  for (const auto& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

class Checker {
 public:
  Checker(const ModelInfo& model, std::shared_ptr<debuginfo::SidecarReader> sidecar,
          CheckReport& report)
      : model_(model),
        sidecar_(std::move(sidecar)),
        report_(report),
        symbolicator_(sidecar_ ? debuginfo::Symbolicator(sidecar_) : model.symbolicator()) {}

  void run() {
    const auto& functions = model_.bytecode->functions;
    report_.functions = functions.size();
    for (const auto& fn : functions) report_.instructions += fn.instructions.size();
    if (!model_.debug.has_handle_table) {
      add(CheckSeverity::kError, "no-debug-handles", {},
          "the model has no mobile_debug_handles.pkl: its instructions carry no debug handles, so "
          "a failure on a device can never be traced back to the model's source",
          "save it with debug information: scripted._c._save_for_mobile(path, {}, True)");
      return;
    }
    if (!sidecar_ && !model_.debug.has_callstack_map) {
      add(CheckSeverity::kError, "no-debug-info", {},
          "the model is stripped (no callstack_debug_map.pkl) and no sidecar was given: its "
          "handles cannot be symbolicated",
          "check it with the sidecar `symbolite split` wrote: symbolite check MODEL --debug "
          "MODEL.symdbg");
      return;
    }
    check_functions();
    check_delegates();
    if (!sidecar_ && model_.debug.callstack_stats.unresolved_row_tags > 0) {
      add(CheckSeverity::kWarning, "pytorch-refuses", {},
          fmt::format("{} call-stack rows have source-range tag -1: PyTorch 1.13's "
                      "_load_for_lite_interpreter refuses this file (\"Source range tag must "
                      "exist in deserialized source range map\")",
                      model_.debug.callstack_stats.unresolved_row_tags),
          "symbolite runs and symbolicates it as it is; `symbolite export MODEL -o OUT` writes a "
          "copy PyTorch loads, with every handle kept");
    }
  }

 private:
  struct Where {
    std::string function;
    std::optional<std::size_t> instruction;
    std::optional<DebugHandle> handle;
  };

  CheckFinding& add(CheckSeverity severity, std::string code, const Where& where,
                    std::string message, std::string advice) {
    CheckFinding f;
    f.severity = severity;
    f.code = std::move(code);
    f.function = where.function;
    f.instruction = where.instruction;
    f.handle = where.handle;
    f.message = std::move(message);
    f.advice = std::move(advice);
    report_.findings.push_back(std::move(f));
    return report_.findings.back();
  }

  void check_functions() {
    std::map<DebugHandle, std::string> first_function;  // handle -> the function using it first
    for (const auto& fn : model_.bytecode->functions) {
      const debuginfo::FunctionHandles* handles = model_.debug.handles.find(fn.qualified_name);
      if (handles == nullptr) {
        add(CheckSeverity::kError, "missing-function-handles", {fn.qualified_name, {}, {}},
            "mobile_debug_handles.pkl has no handles for this method",
            "save the model again with debug information; the file was assembled from parts");
        continue;
      }
      if (handles->handles.size() != fn.instructions.size()) {
        add(CheckSeverity::kError, "handle-count", {fn.qualified_name, {}, {}},
            fmt::format("{} debug handles for {} instructions", handles->handles.size(),
                        fn.instructions.size()),
            "save the model again with debug information; the handle table does not match the "
            "bytecode");
        continue;
      }
      std::set<DebugHandle> seen;  // consecutive instructions of one node share a handle
      for (std::size_t pc = 0; pc < handles->handles.size(); ++pc) {
        const DebugHandle handle = handles->handles[pc];
        if (!seen.insert(handle).second) continue;
        auto [it, inserted] = first_function.emplace(handle, fn.qualified_name);
        if (!inserted && it->second != fn.qualified_name) {
          add(CheckSeverity::kWarning, "shared-handle", {fn.qualified_name, pc, handle},
              fmt::format("the handle is also carried by {}: a crash report naming it is "
                          "ambiguous",
                          it->second),
              "export the model in one go (handles of separate exports collide)");
        }
        ++report_.handles;
        check_handle({fn.qualified_name, pc, handle});
      }
    }
  }

  void check_handle(const Where& where) {
    if (*where.handle == debuginfo::kInvalidDebugHandle) {
      add(CheckSeverity::kWarning, "no-handle", where,
          "the instruction carries handle -1: a failure there cannot be symbolicated",
          "none needed when it is a RET or a DROP; otherwise save the model again with debug "
          "information");
      return;
    }
    debuginfo::Symbolication s = symbolicator_.symbolicate(*where.handle);
    if (s.status == SymbolicationStatus::kNotFound) {
      add(CheckSeverity::kError, "unresolved-handle", where,
          fmt::format("the handle is not in {}",
                      sidecar_ ? "the sidecar" : "callstack_debug_map.pkl"),
          sidecar_
              ? "the sidecar is from another export of this model: split the shipped model again"
              : "save the model again with debug information");
      return;
    }
    if (s.status == SymbolicationStatus::kPartial) {
      auto& f = add(CheckSeverity::kWarning, "lost-source", where,
                    "part of the traceback has no source: " + joined(s.notes),
                    "PyTorch's code printer drops the ranges of subscripted inlined calls "
                    "(`f(x)[1]`, `x.shape[0]`); binding the result to a name first keeps them");
      f.source = source_of(s);
      f.module_hierarchy = s.module_hierarchy;
    }
    if (s.module_hierarchy.find("<unknown>") != std::string::npos ||
        s.module_hierarchy.find("INSTANCE_NAME_UNKNOWN") != std::string::npos) {
      auto& f = add(CheckSeverity::kWarning, "unknown-module", where,
                    "the module hierarchy has a module PyTorch did not name: " + s.module_hierarchy,
                    "PyTorch's inliner loses the outer module path for some `if` and `raise` "
                    "nodes; the traceback still gives the source line");
      f.source = source_of(s);
      f.module_hierarchy = s.module_hierarchy;
    }
  }

  void check_delegates() {
    if (sidecar_) return;  // the sidecar holds no delegate programs
    for (const auto& [handle, site] : delegate_node_sites(model_)) {
      debuginfo::Symbolication s = site.call
                                       ? symbolicator_.symbolicate_delegated(*site.call, handle)
                                       : symbolicator_.symbolicate_in(handle, site.method);
      if (s.status == SymbolicationStatus::kNotFound) {
        add(CheckSeverity::kError, "unresolved-delegate-handle",
            {site.module + "." + site.method, {}, handle},
            fmt::format("the {} delegate node's handle is not in delegated_backends.debug_pkl",
                        site.backend),
            "lower the model again with debug information");
      }
    }
  }

  const ModelInfo& model_;
  std::shared_ptr<debuginfo::SidecarReader> sidecar_;
  CheckReport& report_;
  debuginfo::Symbolicator symbolicator_;
};

// Operators and instructions the runtime cannot run, as loading for a run reports them.
void check_runnable(std::shared_ptr<const ModelInfo> model, const std::string& path,
                    CheckReport& report) {
  try {
    const LoadedModel loaded = LoadedModel::from_info(std::move(model), path);
    try {
      loaded.require_operators();
    } catch (const Error& e) {  // the model loads; a run fails only where it reaches one
      CheckFinding f;
      f.severity = CheckSeverity::kWarning;
      f.code = "missing-operator";
      f.message = e.message();
      for (const auto& line : e.details()) f.message += "\n" + line;  // one per use
      f.advice =
          "a run fails if it reaches one of these operators (docs/OPERATORS.md lists what "
          "symbolite implements); branches it does not take run, and debug information works";
      report.findings.push_back(std::move(f));
    }
  } catch (const Error& e) {
    CheckFinding f;
    f.code = e.kind() == ErrorKind::kUnsupported ? "unsupported" : "not-runnable";
    f.message = e.message();
    for (const auto& line : e.details()) f.message += "\n" + line;
    f.advice =
        "the runtime refuses the file: see the message; its debug information still "
        "works";
    report.findings.push_back(std::move(f));
  }
}

}  // namespace

std::size_t CheckReport::count(CheckSeverity severity) const {
  std::size_t n = 0;
  for (const auto& f : findings) n += f.severity == severity;
  return n;
}

CheckReport check_model(const std::string& model_path, const std::string& sidecar_path) {
  auto shared = std::make_shared<const ModelInfo>(ModelInfo::load(model_path));
  const ModelInfo& model = *shared;
  CheckReport report;
  if (!model.bytecode) {
    CheckFinding f;
    f.code = "not-lite-interpreter";
    f.message =
        "the archive has no bytecode.pkl: it is a full TorchScript file, not a "
        "lite-interpreter model";
    f.advice = "save it with scripted._c._save_for_mobile(path, {}, True)";
    report.findings.push_back(std::move(f));
    return report;
  }
  std::shared_ptr<debuginfo::SidecarReader> sidecar;
  if (!sidecar_path.empty()) {
    sidecar = debuginfo::SidecarReader::open(sidecar_path);
    Hash128 id = compute_model_id(model.archive);
    if (id != sidecar->model_id()) {
      CheckFinding f;
      f.code = "sidecar-mismatch";
      f.message = fmt::format("the sidecar belongs to model {}, this is model {}",
                              to_hex(sidecar->model_id()), to_hex(id));
      f.advice = "use the sidecar `symbolite split` wrote together with this model";
      report.findings.push_back(std::move(f));
      return report;
    }
  }
  Checker(model, sidecar, report).run();
  check_runnable(shared, model_path, report);
  return report;
}

}  // namespace symbolite::mobile
