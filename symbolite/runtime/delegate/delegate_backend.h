// Delegate backends: the runtime side of PyTorch's to_backend. A lowered module holds a
// backend object (`__torch__.torch.classes.__backends__.<name>`) whose `compile` runs once
// at load, on the payload the lowering wrote, and whose `execute` runs a lowered method.
// Backends register here by name; a model that names an unregistered backend fails at load
// with the list of the ones this binary has.
//
// A failure inside a backend leaves as one DelegateFailure carrying the debug handle of the
// delegate node at fault; the interpreter adds the handle of the instruction that called
// `execute`, and the two compose into the model-level traceback through the delegate.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/support/error.h"

namespace symbolite::runtime {

class DelegateFailure : public Error {
 public:
  DelegateFailure(debuginfo::DebugHandle handle, std::string python_class, std::string message)
      : Error(ErrorKind::kModel, message),
        handle_(handle),
        python_class_(std::move(python_class)) {}
  debuginfo::DebugHandle handle() const { return handle_; }  // the delegate node's
  const std::string& python_class() const { return python_class_; }

 private:
  debuginfo::DebugHandle handle_;
  std::string python_class_;
};

class DelegateBackend {
 public:
  virtual ~DelegateBackend() = default;
  virtual bool is_available() const = 0;
  // `processed`: what preprocess wrote (Dict[str, Any]: method -> payload); `compile_spec`:
  // the lowered module's __method_compile_spec. Returns method -> handle, the values
  // `execute` gets back. Errors (Error) name the method and what is wrong with its payload.
  virtual ops::IValue compile(const ops::IValue& processed, const ops::IValue& compile_spec) = 0;
  // Runs a method: one handle from `compile`, the method's inputs; returns its outputs.
  virtual ops::IValueList execute(const ops::IValue& handle, const ops::IValueList& inputs) = 0;
};

using DelegateBackendFactory = std::function<std::unique_ptr<DelegateBackend>()>;

// Adds or replaces the backend `name` ("xnnpack", "symbolite"). Not thread-safe: register at
// start-up, before loading models.
void register_delegate_backend(std::string name, DelegateBackendFactory factory);
// A new instance of backend `name`, or null.
std::unique_ptr<DelegateBackend> create_delegate_backend(std::string_view name);
// Registered names, sorted.
std::vector<std::string> delegate_backend_names();

}  // namespace symbolite::runtime
