#include "symbolite/ops/cpu/depthwise_conv.h"

#include "symbolite/ops/cpu/depthwise_by_plane.h"
#include "symbolite/ops/cpu/depthwise_interleaved.h"

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

void depthwise_conv2d(const float* in, const float* weight, const float* bias, float* out,
                      const ConvGeometry& g) {
  // Both add the bias and then the taps in the same order with FMAs, so the choice changes
  // speed only. Interleaving costs two transposes per element, repaid where plane-wise loops
  // waste work: strided taps, and planes so small that their edges dominate (measured on
  // MobileNet and EfficientNet shapes).
  if (interleave(g)) {
    depthwise_conv2d_interleaved(in, weight, bias, out, g);
  } else {
    depthwise_conv2d_by_plane(in, weight, bias, out, g);
  }
}

}  // namespace symbolite::ops::nn
