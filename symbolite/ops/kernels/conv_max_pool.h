// aten::conv2d and the aten::max_pool2d that alone reads its output, run together
// (epilogue_kernels.h, MaxPoolStage): the convolution a band of output rows at a time into a
// buffer that stays in cache, each band pooled from there, so that the convolution's output
// is never written to memory and read back. SqueezeNet 1.1's stem writes 3.2 MB there: in the
// model it took twice as long as alone, its output buffer coming from memory every run
// (docs/PERFORMANCE.md).
//
// The pooled output is the same bits as the two operators in turn: a band's convolution is one
// of its own over the input rows the band reads, by a path that computes every output as the
// whole convolution does (conv_compute.h, conv2d_f32_by_rows), and the pool's plane kernel
// takes the band as a plane of its own (max_pool_plane.h: each output the maximum of its
// window's rows in order).
#pragma once

#include <cstdint>
#include <optional>

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/registry/epilogue_kernels.h"

namespace symbolite::ops::nn {

// The two operators' geometry, for conv2d_then_max_pool.
struct MaxPoolChain {
  ConvGeometry conv;
  MaxPoolStage pool;
  std::int64_t pooled_h = 0, pooled_w = 0;  // the pool's output plane
};
// The chain of the conv2d whose 7 arguments end `s` and `stage`, where conv2d_then_max_pool
// takes them: a float32 batched convolution over few inputs per output (one group, at most
// 128 taps: a stem) that neither it nor `stage` would refuse, an output too large to stay in
// cache until the pool reads it, and a window the plane kernel takes
// (ops/cpu/max_pool_plane.h); nullopt otherwise.
std::optional<MaxPoolChain> max_pool_chain(const Stack& s, const MaxPoolStage& stage);
// That conv2d with `epilogue`, then the pool on its output, band by band; pushes the pool's
// output, the same bits as the two in turn.
void conv2d_then_max_pool(Stack& s, const Epilogue& epilogue, const MaxPoolChain& chain);

}  // namespace symbolite::ops::nn
