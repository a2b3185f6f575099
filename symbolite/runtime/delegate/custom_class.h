// Custom C++ classes (TorchScript's torch.classes.*) that lowered models create with
// CREATE_OBJECT and call with INTERFACE_CALL: the backend object of a to_backend module
// (`__torch__.torch.classes.__backends__.<name>`, methods `__init__`, `is_available`,
// `compile`, `execute`) and its `backendutils.BackendDebugInfo` (PyTorch keeps the backend
// debug map in it; symbolite reads that map from the file, so it only needs constructing).
#pragma once

#include <memory>
#include <string_view>

#include "symbolite/ops/registry/ivalue.h"

namespace symbolite::runtime {

class CustomClass : public ops::NativeObject {
 public:
  // `args` without self. Error(kNotFound) for a method the class does not have.
  virtual ops::IValue call(std::string_view method, const ops::IValueList& args) = 0;
};

// A new instance of the custom class `type_name`; Error(kUnsupported) naming it (and the
// backends symbolite has, for a backend class) when symbolite has no such class.
std::shared_ptr<CustomClass> create_custom_class(std::string_view type_name);

}  // namespace symbolite::runtime
