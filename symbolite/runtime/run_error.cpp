#include "symbolite/runtime/run_error.h"

#include <fmt/format.h>

#include "symbolite/support/printable_text.h"

namespace symbolite::runtime {

RunError::RunError(RunErrorDetails details)
    : Error(ErrorKind::kModel, render(details)), details_(std::move(details)) {}

// The model's message and the traceback's source keep their lines; names from the file
// (class, function) are kept on one line (the module hierarchy already is).
std::string RunError::render(const RunErrorDetails& d) {
  std::string out = fmt::format("{}: {}", single_line(d.python_class), d.message);
  if (!d.module_hierarchy.empty()) {
    out += fmt::format("\n\nModule hierarchy:{}\n{}", d.module_hierarchy, d.traceback);
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  out += fmt::format("\n\nat instruction {} of {}", d.instruction, single_line(d.function));
  if (!d.debug_info_error.empty()) {
    out += d.handle ? fmt::format(" (debug handle {})", *d.handle) : std::string();
    out += fmt::format(
        "; model id {}. The model's debug info could not be read, so the failure is "
        "not symbolicated: {}",
        d.model_id, d.debug_info_error);
  } else if (d.handle && d.delegate_handle) {
    out += fmt::format(
        " (debug handle {}), in the delegate node with debug handle {}; model id "
        "{}. The model carries no call stacks: run `symbolite symbolicate --debug "
        "MODEL.symdbg {}:{}` with its sidecar, or symbolicate against the full model",
        *d.handle, *d.delegate_handle, d.model_id, *d.handle, *d.delegate_handle);
  } else if (d.handle) {
    out += fmt::format(
        " (debug handle {}); model id {}. The model carries no call stacks: "
        "run `symbolite symbolicate --debug MODEL.symdbg {}` with its sidecar, "
        "or symbolicate against the full model",
        *d.handle, d.model_id, *d.handle);
  } else if (d.delegate_handle) {
    out += fmt::format(
        ", in the delegate node with debug handle {}; model id {}; the model has "
        "no debug handles of its own",
        *d.delegate_handle, d.model_id);
  } else {
    out += fmt::format("; model id {}; the model has no debug handles", d.model_id);
  }
  return out;
}

}  // namespace symbolite::runtime
