// Broadcasting of two shapes, by PyTorch's rules (at::infer_size): align the shapes at
// their last dimension; each pair of sizes must be equal or one of them 1, and the result
// takes the other (so 1 against 0 gives 0).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace symbolite::tensor {

// The broadcast shape of `a` and `b`. Throws Error(kModel) with PyTorch 1.13's own message,
// e.g. "The size of tensor a (2) must match the size of tensor b (3) at non-singleton
// dimension 0", where the dimension counts in the result shape and, as in PyTorch, the last
// mismatching dimension is the one reported.
std::vector<std::int64_t> broadcast_shapes(std::span<const std::int64_t> a,
                                           std::span<const std::int64_t> b);

}  // namespace symbolite::tensor
