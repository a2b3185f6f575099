#include "symbolite/ops/cpu/depthwise_conv.h"

#include "symbolite/ops/cpu/depthwise_interleaved.h"
#include "symbolite/ops/cpu/grouped_by_plane.h"
#include "symbolite/ops/cpu/vector_math.h"

namespace symbolite::ops::nn {
namespace {

// Where interleaving pays at stride 1 (bench/depthwise_bench.cpp, table in
// docs/PERFORMANCE.md): output planes up to 40x40; from 56x56 on the two are even or the
// plane-wise loop wins.
bool interleave(const ConvGeometry& g) {
  if (g.sh > 1 || g.sw > 1) return true;
  return g.oh * g.ow <= 40 * 40;
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
  // Both add the bias and then the taps in the same order with FMAs, so the choice changes
  // speed only. Interleaving costs two transposes per element, repaid where plane-wise loops
  // waste work: strided taps, and planes so small that their edges dominate (measured on
  // MobileNet and EfficientNet shapes).
  if (interleave(g)) {
    depthwise_conv2d_interleaved(in, weight, bias, out, g, fused);
  } else {
    grouped_conv2d_by_plane(in, weight, bias, out, g, fused);
  }
}

}  // namespace symbolite::ops::nn
