// Kernels that can also apply the in-place activation the bytecode runs right after their
// operator while their output is in cache (mobile/operator_fusion.h pairs them at load):
// `conv2d` a block of output rows at a time right after its products, `batch_norm` in its own
// pass over the output.
#pragma once

#include <optional>
#include <string_view>

#include "symbolite/ops/common/activation.h"
#include "symbolite/ops/registry/operator_registry.h"

namespace symbolite::ops {

// Pops the operator's arguments and pushes its result, as its kernel does, applying
// `activation` to the result where it can; returns whether it did. When it did not (float64,
// training mode), the caller runs the activation's own kernel on the result.
using EpilogueKernel = bool (*)(Stack& stack, Activation activation);

// The epilogue kernel of operator `op_name` ("aten::batch_norm"), or null if it has none.
EpilogueKernel epilogue_kernel(std::string_view op_name);

namespace nn {
bool batch_norm_with_activation(Stack& s, std::optional<Activation> activation);
bool conv2d_with_activation(Stack& s, std::optional<Activation> activation);
}  // namespace nn

}  // namespace symbolite::ops
