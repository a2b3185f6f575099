#include "symbolite/tensor/strided_copy.h"

#include <xmmintrin.h>

#include <algorithm>
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

// dst[r * cols + c] = src[r + c * src_stride] for r < rows, c < cols: a matrix stored column
// by column copied row by row (an NCHW image's permute to NHWC, a transpose's last two dims),
// 4x4 tiles through SSE registers (the x86-64 baseline): element by element, each a load
// from another column, it ran 5x slower. The tiles move 4-byte elements as they are.
void transpose_words(const std::uint8_t* src, std::int64_t src_stride, std::int64_t rows,
                     std::int64_t cols, std::uint8_t* dst) {
  const auto* from = reinterpret_cast<const float*>(src);
  auto* to = reinterpret_cast<float*>(dst);
  parallel_for(rows, std::max<std::int64_t>(4, kElementsPerThread / cols),
               [&](std::int64_t first, std::int64_t last) {
                 std::int64_t r = first;
                 for (; r + 4 <= last; r += 4) {
                   std::int64_t c = 0;
                   for (; c + 4 <= cols; c += 4) {
                     __m128 t0 = _mm_loadu_ps(from + r + c * src_stride);
                     __m128 t1 = _mm_loadu_ps(from + r + (c + 1) * src_stride);
                     __m128 t2 = _mm_loadu_ps(from + r + (c + 2) * src_stride);
                     __m128 t3 = _mm_loadu_ps(from + r + (c + 3) * src_stride);
                     _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
                     _mm_storeu_ps(to + r * cols + c, t0);
                     _mm_storeu_ps(to + (r + 1) * cols + c, t1);
                     _mm_storeu_ps(to + (r + 2) * cols + c, t2);
                     _mm_storeu_ps(to + (r + 3) * cols + c, t3);
                   }
                   for (; c < cols; ++c) {
                     for (std::int64_t i = 0; i < 4; ++i) {
                       to[(r + i) * cols + c] = from[r + i + c * src_stride];
                     }
                   }
                 }
                 for (; r < last; ++r) {
                   for (std::int64_t c = 0; c < cols; ++c) {
                     to[r * cols + c] = from[r + c * src_stride];
                   }
                 }
               });
}

// The offset in elements of outer index `linear` (row-major over `size`, strides `stride`),
// its multi-index into `index` when given.
std::int64_t offset_of(std::int64_t linear, std::span<const std::int64_t> size,
                       std::span<const std::int64_t> stride, std::int64_t* index = nullptr) {
  std::int64_t offset = 0;
  for (std::size_t d = size.size(); d-- > 0;) {
    const std::int64_t i = linear % size[d];
    linear /= size[d];
    offset += i * stride[d];
    if (index != nullptr) index[d] = i;
  }
  return offset;
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
  // Matrices stored column by column (4-byte elements, 16 columns or more: fewer are quicker
  // gathered), one per index of the dims before them: each transposed by tiles.
  const std::size_t dims = size.size();
  if (element_size == 4 && dims >= 2 && stride[dims - 2] == 1 && stride[dims - 1] != 1 &&
      size[dims - 1] >= 16 && reinterpret_cast<std::uintptr_t>(src) % alignof(float) == 0) {
    const std::int64_t rows = size[dims - 2], cols = size[dims - 1];
    const std::span<const std::int64_t> outer_size(size.data(), dims - 2);
    const std::span<const std::int64_t> outer_stride(stride.data(), dims - 2);
    std::int64_t matrices = 1;
    for (std::int64_t n : outer_size) matrices *= n;
    for (std::int64_t m = 0; m < matrices; ++m) {
      transpose_words(src + offset_of(m, outer_size, outer_stride) * 4, stride[dims - 1], rows,
                      cols, dst + m * rows * cols * 4);
    }
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
                 std::int64_t offset =
                     offset_of(first, std::span(size.data(), outer_dims),
                               std::span(stride.data(), outer_dims), index.data());
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
