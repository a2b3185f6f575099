// Memory layouts between XNNPACK operators. XNNPACK's convolutions and poolings read and write
// NHWC ("channels last"); PyTorch's tensors are NCHW. A 4-D tensor here keeps its NCHW sizes
// and is stored channels-last with matching strides, so the interpreter's kernels and the
// caller see an ordinary (strided) PyTorch tensor, and consecutive XNNPACK nodes exchange
// buffers without converting.
#pragma once

#include <cstdint>
#include <vector>

#include "symbolite/tensor/tensor.h"

namespace symbolite::backends {

// Strides of an NCHW-sized tensor stored channels-last: {H*W*C, 1, W*C, C}.
std::vector<std::int64_t> channels_last_strides(const std::vector<std::int64_t>& sizes);

// Whether `t` (4-D) is densely stored channels-last (size-1 dimensions ignored).
bool is_channels_last(const tensor::Tensor& t);

// `t` (4-D float) if it is channels-last, else a channels-last copy.
tensor::Tensor to_channels_last(const tensor::Tensor& t);

// A new uninitialized float tensor of NCHW `sizes`, stored channels-last.
tensor::Tensor empty_channels_last(const std::vector<std::int64_t>& sizes);

// Whether `t`'s elements fill its memory with no gaps in some order (contiguous or
// channels-last): then element-wise operators may treat it as a flat array.
bool is_dense(const tensor::Tensor& t);

// A new uninitialized float tensor laid out like dense `t` (same sizes and strides).
tensor::Tensor empty_like_dense(const tensor::Tensor& t);

}  // namespace symbolite::backends
