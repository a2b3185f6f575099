// Operator fusion at load. Batch norms are folded into the convolutions before them where
// batch_norm_folding.h shows it safe; then an operator immediately followed by an in-place
// activation on its
// result (`batch_norm` then `relu_`, `hardswish_`, `hardsigmoid_` or `silu_`, as every
// torchvision Conv-BN-activation block compiles) runs as one kernel that applies the
// activation in the same pass over the output (ops/registry/epilogue_kernels.h). The result
// has the same bits as the two operators one after the other (ops/common/activation.h).
//
// The file's code is left as it is: the fused copy (`LoadedFunction::fused_instructions`)
// calls a new operator entry, appended to the function's operators, at the first
// instruction, and turns the activation into `JMP 1`, which does nothing — its result, the
// same tensor, is already on the stack. Instruction indices do not move, so jump targets,
// debug handles and failure locations are the file's. Profiled runs take the file's code, so
// that every operator is timed and attributed on its own.
#pragma once

#include "symbolite/mobile/loaded_model.h"

namespace symbolite::mobile {

// Fills fn.fused_instructions (left empty when nothing fuses). `fn` is verified. With
// `root`, `fn` is a method of the root module's class in a model where no instruction sets an
// attribute, and batch norms are folded into convolutions too (batch_norm_folding.h).
void fuse_operators(LoadedFunction& fn, const ops::IValue* root);

// fuse_operators on every function of a loaded model.
void fuse_model_operators(LoadedModel& model);

}  // namespace symbolite::mobile
