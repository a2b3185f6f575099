// Batch norm folded into the convolution before it, at load: a top-level method's `conv2d`
// whose output only an eval-mode `batch_norm` reads applies the batch norm's per-channel scale
// and shift in its own epilogue, on each block of output rows right after its products, and
// the batch norm does nothing. The scale and shift are computed once, as batch_norm computes
// them on every call, and applied as it applies them (a multiply, then an add): the results
// are the same bits as running the two operators.
//
// What makes it safe is found by walking the method from its entry along the one path its
// module attributes fix, following values through registers and the stack: `if
// self.training:` and `if self.stride == 1:` are decided by the module tree, and an assertion
// (`if x.dim() != 4: raise ...`) goes on along the side that does not raise. The walk stops
// where the path depends on the input (a loop, a branch on a value), and a fold is kept only if
// no path from there leads back to it. A fold needs the batch norm's parameters to be
// attributes of modules reached from `self` (the root module) holding read-only tensors of the
// file (an in-place op on one makes a new tensor, so their values never change), float32 and
// of one element per output channel of the convolution's weight (so the batch norm could not
// have failed); `training` false; and the convolution's output read by the batch norm alone
// (its shape may be asked for). The caller makes sure no instruction of the model sets an
// attribute and that the method runs with the root module as `self` (runtime/interpreter.h).
#pragma once

#include <vector>

#include "symbolite/mobile/loaded_model.h"

namespace symbolite::mobile {

struct BatchNormFold {
  std::size_t conv_pc = 0;        // OP aten::conv2d
  std::size_t batch_norm_pc = 0;  // OP aten::batch_norm
  std::vector<float> scale;       // per output channel
  std::vector<float> shift;
};

// The folds of `fn`, a method of `root`'s class, in order.
std::vector<BatchNormFold> find_batch_norm_folds(const LoadedFunction& fn, const ops::IValue& root);

// A max_pool2d whose input is a convolution's output, which nothing else reads (its shape
// neither), its window known: found the same way, on the code after folding and fusion, where
// a folded batch norm returns its input and a fused activation is a jump over it
// (operator_fusion.h). A stem's convolution and pool, run together
// (ops/registry/epilogue_kernels.h, MaxPoolStage).
struct PoolChain {
  std::size_t conv_pc = 0;  // OP aten::conv2d
  std::size_t pool_pc = 0;  // OP aten::max_pool2d reading its output
  // The pool's arguments after its input (kernel_size, stride, padding, dilation, ceil_mode).
  std::vector<ops::IValue> pool_args;
};

// A cat of the outputs of convolutions that nothing else reads (their shapes neither), in a
// list that only the cat reads, along a known dim (SqueezeNet's Fire modules, Inception's
// blocks): the convolutions write their outputs into the parts of one buffer that the cat
// then returns whole (runtime/cat_in_place.h).
struct CatChain {
  std::vector<std::size_t> conv_pcs;  // OP aten::conv2d of each item, in the list's order
  std::size_t cat_pc = 0;             // OP aten::cat
  std::int64_t dim = 0;
};

struct FusedChains {
  std::vector<PoolChain> pools;
  std::vector<CatChain> cats;
};

// The chains of `fn`, a method of `root`'s class whose fused code is `fused_code`.
FusedChains find_chains(const LoadedFunction& fn, const std::vector<Instruction>& fused_code,
                        const ops::IValue& root);

}  // namespace symbolite::mobile
