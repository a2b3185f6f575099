// `Symbolicator`: turns debug handles into Symbolications, using a model's DebugTable and
// (optionally) its per-instruction HandleTable.
//
// Output follows PyTorch 1.13's mobile debug table (same module hierarchy grammar, same
// traceback layout) with deliberate improvements, documented in the README:
//   - the top frame and hierarchy name the real method (from the bytecode function that
//     holds the handle) where PyTorch prints `<unknown>`;
//   - frames whose source range was lost are shown and explained, not dropped or fatal;
//   - a missing handle says why: no debug info at all, the -1 sentinel, or simply absent.
#pragma once

#include <memory>
#include <string>

#include "symbolite/debuginfo/debug_info_source.h"
#include "symbolite/debuginfo/symbolication.h"

namespace symbolite::debuginfo {

class Symbolicator {
 public:
  explicit Symbolicator(std::shared_ptr<const DebugInfoSource> source);

  // Everything, including the traceback text.
  Symbolication symbolicate(DebugHandle handle) const { return resolve(handle, true); }
  // Operator, site, module hierarchy, frames and notes, but no traceback text: for bulk
  // consumers (profilers, aggregators) that render frames their own way.
  Symbolication resolve(DebugHandle handle, bool render_traceback = false) const {
    return resolve_in(handle, render_traceback, {});
  }

  // A failure inside a to_backend delegate carries two handles: `instruction`, of the
  // instruction that called the backend's `execute`, and `backend`, of the failing node, whose
  // call stack is recorded relative to the lowered module. Composes them as PyTorch 1.13 does:
  // the instruction's hierarchy without its own operator, then the backend node's without its
  // top segment; the instruction's traceback, then the backend node's frames. The result has
  // the backend node's operator and handle, the instruction's site; kNotFound if either is.
  Symbolication symbolicate_delegated(DebugHandle instruction, DebugHandle backend) const;
  // A handle no instruction carries — a delegate node's, before any instruction called it (a
  // compile failure) — as part of the lowered method `function` ("forward").
  Symbolication symbolicate_in(DebugHandle handle, std::string_view function) const {
    return resolve_in(handle, true, function);
  }

 private:
  void explain_missing(Symbolication& result) const;
  // `function`: the name of the function a handle that no instruction carries belongs to (a
  // backend node's: the lowered method); "<unknown>" when empty.
  Symbolication resolve_in(DebugHandle handle, bool render_traceback,
                           std::string_view function) const;

  std::shared_ptr<const DebugInfoSource> source_;
  std::string top_type_short_;
};

// "__torch__.torch.nn.modules.linear.Linear" -> "Linear".
std::string short_type_name(std::string_view qualified);

}  // namespace symbolite::debuginfo
