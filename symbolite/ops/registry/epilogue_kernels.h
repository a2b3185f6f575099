// Kernels that can also do what the bytecode does to their output right after them, while the
// output is in cache (mobile/operator_fusion.h pairs them at load): `conv2d` a block of output
// rows at a time right after its products — a folded batch norm's scale and shift, then an
// in-place activation — and `batch_norm` an activation in its own pass over the output.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "symbolite/ops/common/activation.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {

struct Epilogue {
  // Per output channel c, y = y * scale[c] + shift[c], a multiply then an add as batch_norm
  // computes it (mobile/batch_norm_folding.h); empty for none.
  std::vector<float> scale;
  std::vector<float> shift;
  std::optional<Activation> activation;  // then
};

// Pops the operator's arguments and pushes its result, as its kernel does, applying
// `epilogue` to the result where it can; returns whether it did, all of it. When it did not
// (float64, training mode), it applied none of it.
using EpilogueKernel = bool (*)(Stack& stack, const Epilogue& epilogue);

// The epilogue kernel of operator `op_name` ("aten::batch_norm"), or null if it has none.
EpilogueKernel epilogue_kernel(std::string_view op_name);

// An uninitialized contiguous output of these sizes and dtype, where the caller wants it.
using OutputAllocator =
    std::function<tensor::Tensor(const std::vector<std::int64_t>& sizes, tensor::DType dtype)>;

// A max_pool2d reading a convolution's output, which nothing else reads (a stem as SqueezeNet
// 1.1 has it: convolution, activation, pool), its window read from the model at load
// (mobile/batch_norm_folding.h, PoolChain): run with the convolution band by band of output
// rows (ops/kernels/conv_max_pool.h), so that the convolution's output (3.2 MB in SqueezeNet
// 1.1's stem) is pooled while in cache and never written out whole.
struct MaxPoolStage {
  std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  bool ceil_mode = false;
};

namespace nn {
// batch_norm takes an activation only.
bool batch_norm_with_activation(Stack& s, std::optional<Activation> activation);
bool conv2d_with_epilogue(Stack& s, const Epilogue& epilogue);
// conv2d_with_epilogue whose batched output is `allocate`d: a part of a buffer that a cat
// returns whole (runtime/cat_in_place.h).
bool conv2d_with_epilogue_into(Stack& s, const Epilogue& epilogue, const OutputAllocator& allocate);
}  // namespace nn

}  // namespace symbolite::ops
