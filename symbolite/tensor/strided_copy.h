// Copying a strided tensor's elements into contiguous memory, row-major: Tensor::copy and
// contiguous() (ShuffleNet's channel shuffles, permutes, transposes before a GEMM). Dims are
// merged where the tensor is contiguous across them, the innermost run is copied with memcpy
// when its stride is 1 and with a typed loop otherwise, and large copies are split across
// threads by rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace symbolite::tensor {

// Copies the elements of the strided view (`sizes`, `strides` in elements, `element_size`
// bytes each, starting at `src`) to `dst`, which holds their count, in row-major order.
void copy_strided(const std::uint8_t* src, std::span<const std::int64_t> sizes,
                  std::span<const std::int64_t> strides, std::size_t element_size,
                  std::uint8_t* dst);

}  // namespace symbolite::tensor
