// A cat whose items are the outputs of convolutions that nothing else reads
// (mobile/batch_norm_folding.h, CatChain; SqueezeNet's Fire modules, Inception's blocks), run
// without copying: the first convolution to run makes a buffer the size of the output, each
// writes its output into its part of it, and the cat returns the buffer. The parts' shapes
// come from the cat's last run (mobile/cat_in_place_plan.h): a first run, or one whose shapes
// changed or do not tile the output (a batch of several images along channels), copies as
// aten::cat does and remembers them. The cat checks that every item is its part before it
// returns the buffer, so anything unforeseen ends in a copy, never in a wrong result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "symbolite/mobile/cat_in_place_plan.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::runtime {

// A buffer the convolutions of one chained cat are writing into, in one frame.
struct PendingCat {
  std::size_t cat_pc = 0;
  tensor::Tensor buffer;
  std::vector<std::int64_t> offsets;  // each item's first element in it
  std::vector<std::vector<std::int64_t>> sizes;
  std::vector<bool> handed;  // items handed their part
};

// The output of item `item` of the chained cat `plan`, of `sizes` and `dtype`: its part of the
// buffer (made by the first item to ask) where the shapes are the last run's, else a tensor of
// its own.
tensor::Tensor cat_part(std::vector<PendingCat>& pending, const mobile::CatInPlacePlan& plan,
                        std::size_t item, const std::vector<std::int64_t>& sizes,
                        tensor::DType dtype);

// The chained cat `op` on its two arguments on top of `stack`: pushes the buffer when every
// item is its part of it, else runs aten::cat and remembers the items' shapes.
void run_cat_in_place(std::vector<PendingCat>& pending, const mobile::ResolvedOperator& op,
                      ops::Stack& stack);

}  // namespace symbolite::runtime
