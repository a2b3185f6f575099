// What the `eager` (and `symbolite`) delegate backend takes: every operator node symbolite has a
// kernel for — the partition then runs with the interpreter's own kernels inside the delegate
// (runtime/delegate/program_backend.h), which isolates partitioning and serialization from a
// backend's own code generation. Control flow, effects and non-operator nodes stay with the
// interpreter, each with the reason.
#pragma once

#include <string>

#include "symbolite/compiler/partitioner.h"

namespace symbolite::backends {

class EagerSupport final : public compiler::BackendSupport {
 public:
  explicit EagerSupport(std::string name = "eager") : name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  std::optional<std::string> why_unsupported(const compiler::Node& node) const override;

 private:
  std::string name_;
};

}  // namespace symbolite::backends
