#include "symbolite/tensor/strided_copy.h"

#include <cstring>
#include <vector>

#include "symbolite/support/parallel_for.h"

namespace symbolite::tensor {
namespace {

// Elements per thread below which a copy stays on one thread.
constexpr std::int64_t kElementsPerThread = std::int64_t{1} << 16;

// `count` elements `stride` apart, gathered into dst.
template <typename T>
void gather(const std::uint8_t* src, std::int64_t stride, std::int64_t count, std::uint8_t* dst) {
  T* out = reinterpret_cast<T*>(dst);
  for (std::int64_t i = 0; i < count; ++i) {
    std::memcpy(out + i, src + i * stride * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  }
}

void copy_run(const std::uint8_t* src, std::int64_t stride, std::int64_t count,
              std::size_t element_size, std::uint8_t* dst) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(count) * element_size);
    return;
  }
  switch (element_size) {
    case 1:
      return gather<std::uint8_t>(src, stride, count, dst);
    case 2:
      return gather<std::uint16_t>(src, stride, count, dst);
    case 4:
      return gather<std::uint32_t>(src, stride, count, dst);
    case 8:
      return gather<std::uint64_t>(src, stride, count, dst);
    default:
      for (std::int64_t i = 0; i < count; ++i) {
        std::memcpy(dst + static_cast<std::size_t>(i) * element_size,
                    src + i * stride * static_cast<std::int64_t>(element_size), element_size);
      }
  }
}

}  // namespace

void copy_strided(const std::uint8_t* src, std::span<const std::int64_t> sizes,
                  std::span<const std::int64_t> strides, std::size_t element_size,
                  std::uint8_t* dst) {
  // Merged dims, outermost first: size-1 dims dropped, a dim folded into the one before it
  // when stepping over the inner one whole is one step of the outer.
  std::vector<std::int64_t> size;
  std::vector<std::int64_t> stride;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return;
    if (sizes[d] == 1) continue;
    if (!size.empty() && stride.back() == strides[d] * sizes[d]) {
      size.back() *= sizes[d];
      stride.back() = strides[d];
    } else {
      size.push_back(sizes[d]);
      stride.push_back(strides[d]);
    }
  }
  if (size.empty()) {  // one element
    std::memcpy(dst, src, element_size);
    return;
  }
  const std::int64_t inner = size.back();
  const std::int64_t inner_stride = stride.back();
  const std::size_t outer_dims = size.size() - 1;
  std::int64_t rows = 1;
  for (std::size_t d = 0; d < outer_dims; ++d) rows *= size[d];
  const auto elem = static_cast<std::int64_t>(element_size);
  parallel_for(rows, std::max<std::int64_t>(1, kElementsPerThread / inner),
               [&](std::int64_t first, std::int64_t last) {
                 // The outer index of row `first`, and its offset in elements.
                 std::vector<std::int64_t> index(outer_dims, 0);
                 std::int64_t offset = 0;
                 std::int64_t rest = first;
                 for (std::size_t d = outer_dims; d-- > 0;) {
                   index[d] = rest % size[d];
                   rest /= size[d];
                   offset += index[d] * stride[d];
                 }
                 std::uint8_t* out = dst + first * inner * elem;
                 for (std::int64_t row = first; row < last; ++row) {
                   copy_run(src + offset * elem, inner_stride, inner, element_size, out);
                   out += inner * elem;
                   for (std::size_t d = outer_dims; d-- > 0;) {
                     offset += stride[d];
                     if (++index[d] < size[d]) break;
                     offset -= stride[d] * size[d];
                     index[d] = 0;
                   }
                 }
               });
}

}  // namespace symbolite::tensor
