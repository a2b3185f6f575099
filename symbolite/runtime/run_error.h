// `RunError`: a failure while running a model, reported the way a person can act on it —
// the exception class and message the model raised (`IndexError: list index out of range`),
// then where: the module hierarchy and TorchScript traceback of the failing instruction's
// debug handle. Without debug info in the model, it names the method, the instruction, the
// debug handle and the model id, so that `symbolite symbolicate --debug MODEL.symdbg HANDLE`
// can recover the rest later.
#pragma once

#include <optional>
#include <string>

#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/support/error.h"

namespace symbolite::runtime {

struct RunErrorDetails {
  std::string python_class;  // "RuntimeError", "IndexError", "builtins.ValueError"
  std::string message;       // as the kernel or the model said it
  std::string function;      // "__torch__.Top.forward"
  std::size_t instruction = 0;
  std::optional<debuginfo::DebugHandle> handle;
  // A failure inside a delegate backend: the handle of the delegate node at fault (`handle`
  // is then the instruction that called the backend's `execute`).
  std::optional<debuginfo::DebugHandle> delegate_handle;
  std::string model_id;          // 32 hex digits
  std::string module_hierarchy;  // empty without debug info
  std::string traceback;         // empty without debug info
  // The model has debug records but they could not be decoded (they are read on the first
  // failure): why, so the failure is still reported whole, with its handle.
  std::string debug_info_error;
};

class RunError : public Error {
 public:
  explicit RunError(RunErrorDetails details);
  const RunErrorDetails& details() const { return details_; }

 private:
  static std::string render(const RunErrorDetails& d);
  RunErrorDetails details_;
};

}  // namespace symbolite::runtime
