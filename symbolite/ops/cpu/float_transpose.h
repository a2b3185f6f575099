// Transposing a matrix of floats: how an image moves between PyTorch's NCHW (a row per
// channel) and the NHWC oneDNN's convolutions run in (a row per pixel). oneDNN's own reorder
// for that ran at 4-14 GB/s on ResNet-18's activations, an eighth of the convolutions' time;
// here 16 x 16 tiles go through AVX-512 registers (8 x 8 through AVX2).
#pragma once

#include <cstdint>

namespace symbolite::ops {

// dst[j * dst_stride + i] = src[i * src_stride + j] for i < rows, j < cols. Strides are in
// floats; src and dst do not overlap. Reads and writes nothing outside those elements.
void transpose_f32(const float* src, std::int64_t src_stride, float* dst, std::int64_t dst_stride,
                   std::int64_t rows, std::int64_t cols);

// Each instruction set's version, for the tests: transpose_f32 takes the widest the CPU has.
namespace transpose_isa {
void avx512(const float* src, std::int64_t src_stride, float* dst, std::int64_t dst_stride,
            std::int64_t rows, std::int64_t cols);
void avx2(const float* src, std::int64_t src_stride, float* dst, std::int64_t dst_stride,
          std::int64_t rows, std::int64_t cols);
void scalar(const float* src, std::int64_t src_stride, float* dst, std::int64_t dst_stride,
            std::int64_t rows, std::int64_t cols);
}  // namespace transpose_isa

}  // namespace symbolite::ops
