// Operator fusion at load: work the bytecode does on an operator's output right after it
// moves into that operator's epilogue (ops/registry/epilogue_kernels.h), done while the
// output is in cache instead of in passes of its own.
// - A batch norm that only reads a convolution's output is folded into it: the convolution
//   applies the batch norm's scale and shift, and the batch norm returns its input
//   (batch_norm_folding.h says when that is safe).
// - An activation right after a convolution or batch norm (`relu_`, `hardswish_`,
//   `hardsigmoid_`, `silu_`, ReLU6's `hardtanh_(x, 0, 6)`, as every torchvision
//   Conv-BN-activation block compiles, or the same out of place: `nn.ReLU()`, `F.silu(x)`,
//   `nn.ReLU6()`) runs in the epilogue; after a folded batch norm, in the convolution's. The
//   activation's input is then the output the operator just pushed, which nothing else has
//   seen, so an out-of-place activation's new tensor can be that output itself.
// - A max_pool2d that alone reads a fused convolution's output runs with it, band by band of
//   rows (batch_norm_folding.h, PoolChain; ops/registry/epilogue_kernels.h, MaxPoolStage),
//   where the kernel takes the pair at run time; the pool then returns its input.
// The epilogue computes as the operators it replaces, in their order, so results are the same
// bits (ops/common/activation.h, ops/cpu/vector_math.h).
//
// The file's code is left as it is: the fused copy (`LoadedFunction::fused_instructions`),
// index for index, calls new operator entries (appended to the function's operators) at the
// convolution and batch norm, and turns the activation's instructions into `JMP 1`, which
// does nothing — its result, the same tensor, is already on the stack. Instruction indices do
// not move, so jump targets, debug handles and failure locations are the file's. Profiled runs
// take the file's code, so that every operator is timed and attributed on its own, unless the
// profile asks for the code as it runs (profiler::kDetailAsRun: a fused operator is one event
// named for all it does, ResolvedOperator::fused_name).
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
