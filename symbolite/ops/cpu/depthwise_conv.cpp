#include "symbolite/ops/cpu/depthwise_conv.h"

#include "symbolite/ops/cpu/depthwise_direct.h"
#include "symbolite/ops/cpu/depthwise_interleaved.h"
#include "symbolite/ops/cpu/grouped_by_plane.h"
#include "symbolite/ops/cpu/vector_math.h"

namespace symbolite::ops::nn {
namespace {

// Which kernel, by bench/depthwise_bench.cpp and the models (figures in docs/PERFORMANCE.md).
// Interleaving costs two transposes per element, repaid where plane-wise loops waste work:
// strided taps, and planes so small that their edges dominate (up to 40x40). Above that, at
// stride 1, row by row (1.3-2.1x faster than plane by plane at 56x56 and 112x112); plane by
// plane for the dilated ones it does not take. At stride 2 on images 96 or more wide, row by
// row too: even with interleaved in the benchmark, but MobileNetV3-Small's first depthwise
// convolution (16 x 112x112, reading the stem's output) made the model 4 % faster at one
// thread, and EfficientNet-B0's (96 x 112x112) did not change.
enum class Kernel { kDirect, kInterleaved, kByPlane };

Kernel choose(const ConvGeometry& g) {
  if (g.sh == 2 && g.w >= 96 && depthwise_direct_shape(g)) return Kernel::kDirect;
  if (g.sh > 1 || g.sw > 1 || g.oh * g.ow <= 40 * 40) return Kernel::kInterleaved;
  return depthwise_direct_shape(g) ? Kernel::kDirect : Kernel::kByPlane;
}

}  // namespace

void finish_plane(const Epilogue* fused, float* plane, std::int64_t n, std::int64_t channel) {
  if (fused == nullptr) return;
  finish_plane_from(fused, plane, n, plane, 1, n, channel);
}

// `plane` is written through `moved` (clang-tidy does not follow it).
void finish_plane_from(const Epilogue* fused, const float* wide, std::int64_t pitch,
                       float* plane,  // NOLINT(readability-non-const-parameter)
                       std::int64_t rows, std::int64_t cols, std::int64_t channel) {
  const vec::Rows moved{wide, pitch, plane, cols, rows, cols};
  if (fused == nullptr) {
    vec::epilogue_rows_f32(moved, nullptr, nullptr, nullptr, nullptr);
    return;
  }
  const auto c = static_cast<std::size_t>(channel);
  const bool affine = !fused->scale.empty();
  vec::epilogue_rows_f32(moved, nullptr, affine ? &fused->scale[c] : nullptr,
                         affine ? &fused->shift[c] : nullptr,
                         fused->activation ? &*fused->activation : nullptr);
}

void depthwise_conv2d(const float* in, const float* weight, const float* bias, float* out,
                      const ConvGeometry& g, const Epilogue* fused) {
  // All three add the bias and then the taps in the same order with FMAs, so the choice
  // changes speed only.
  switch (choose(g)) {
    case Kernel::kDirect:
      return depthwise_conv2d_direct(in, weight, bias, out, g, fused);
    case Kernel::kInterleaved:
      return depthwise_conv2d_interleaved(in, weight, bias, out, g, fused);
    case Kernel::kByPlane:
      return grouped_conv2d_by_plane(in, weight, bias, out, g, fused);
  }
}

}  // namespace symbolite::ops::nn
