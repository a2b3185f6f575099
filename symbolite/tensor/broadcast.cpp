#include "symbolite/tensor/broadcast.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::tensor {

std::vector<std::int64_t> broadcast_shapes(std::span<const std::int64_t> a,
                                           std::span<const std::int64_t> b) {
  std::size_t ndim = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(ndim);
  // Walk from the last dimension, as infer_size does, so the same mismatch is reported.
  for (std::size_t i = ndim; i > 0; --i) {
    std::size_t offset = ndim - i;  // distance from the last dimension
    std::int64_t size_a = offset < a.size() ? a[a.size() - 1 - offset] : 1;
    std::int64_t size_b = offset < b.size() ? b[b.size() - 1 - offset] : 1;
    if (size_a != size_b && size_a != 1 && size_b != 1) {
      throw Error(ErrorKind::kModel,
                  fmt::format("The size of tensor a ({}) must match the size of tensor b ({}) "
                              "at non-singleton dimension {}",
                              size_a, size_b, i - 1));
    }
    out[i - 1] = size_a == 1 ? size_b : size_a;
  }
  return out;
}

}  // namespace symbolite::tensor
