// The pre-ship check of `symbolite check`: will this model's debug information answer when a
// crash comes in? Every instruction must carry a debug handle that resolves to a module
// hierarchy and a source location, in the model or in its sidecar; the file must be one
// PyTorch can load; the runtime must have every operator. Each finding names the method,
// instruction, handle and source line, and says what to do about it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "symbolite/debuginfo/debug_info.h"

namespace symbolite::mobile {

enum class CheckSeverity { kWarning, kError };

struct CheckFinding {
  CheckSeverity severity = CheckSeverity::kError;
  std::string code;      // stable identifier: "unresolved-handle", "lost-source", ...
  std::string function;  // qualified method, when the finding is about one
  std::optional<std::size_t> instruction;
  std::optional<debuginfo::DebugHandle> handle;
  std::string source;            // "model_defs.py:42" of the node, when known
  std::string module_hierarchy;  // when known
  std::string message;           // what is wrong
  std::string advice;            // what to do about it
};

struct CheckReport {
  std::size_t functions = 0;
  std::size_t instructions = 0;
  std::size_t handles = 0;  // distinct handles checked
  std::vector<CheckFinding> findings;

  std::size_t count(CheckSeverity severity) const;
};

// Checks the model at `model_path`, against the sidecar at `sidecar_path` when given (its
// model id must match). Throws Error only when the model cannot be read at all.
CheckReport check_model(const std::string& model_path, const std::string& sidecar_path = {});

}  // namespace symbolite::mobile
