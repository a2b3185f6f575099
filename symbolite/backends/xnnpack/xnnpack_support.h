// Which IR nodes the XNNPACK delegate takes: the operators XNNPACK's subgraph API (Debian's
// libxnnpack, 2022-02 snapshot) can express — convolution, fully connected, pooling,
// element-wise arithmetic, clamps and activations, softmax, concatenation, reshapes — by their
// PyTorch 1.13 operator names. Everything else (control flow, list and attribute handling,
// LSTMs, indexing, ...) stays with the interpreter, each with the reason.
#pragma once

#include <optional>
#include <string>

#include "symbolite/compiler/partitioner.h"

namespace symbolite::backends {

class XnnpackSupport final : public compiler::BackendSupport {
 public:
  const std::string& name() const override;
  std::optional<std::string> why_unsupported(const compiler::Node& node) const override;
};

}  // namespace symbolite::backends
