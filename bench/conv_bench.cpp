// The dense convolution choice (ops/cpu/onednn_conv.h): oneDNN's direct convolution, taken
// when the weight is read-only bytes (a model file's), against im2col + GEMM, taken for the
// same weight in a buffer of its own — through `aten::conv2d` as a model calls it, reorders
// and epilogue included, on ResNet's, DenseNet's and Inception's dense shapes at 224x224.
// Google Benchmark prints the time per shape; docs/PERFORMANCE.md records a run.
//
//   SYMBOLITE_NUM_THREADS=1 build/bin/symbolite_conv_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/file_weights.h"
#include "bench/shape_args.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/tensor/tensor.h"

namespace {

using symbolite::bench::filled;
using symbolite::bench::read_only;
using symbolite::ops::IValue;
using symbolite::tensor::Tensor;

struct Shape {
  std::int64_t in, size, out, kernel, stride;
};

// resnet18 (stem, each stage's 3x3 and strided 3x3), densenet121/161's growth 3x3s,
// inception_v3's 3x3 at 35x35.
const Shape kShapes[] = {
    {3, 224, 64, 7, 2},
    {64, 56, 64, 3, 1},
    {64, 56, 128, 3, 2},
    {128, 28, 128, 3, 1},
    {256, 14, 256, 3, 1},
    {512, 7, 512, 3, 1},
    {128, 56, 32, 3, 1},
    {192, 56, 48, 3, 1},
    {64, 35, 96, 3, 1},
    {96, 35, 96, 3, 1},
    // Stems over 3 channels into 16, 24 and 32 (MobileNets, ShuffleNet, EfficientNet), and a
    // 5x5 one: neither path above takes them; they run row by row (stem_conv.h).
    {3, 224, 16, 3, 2},
    {3, 224, 24, 3, 2},
    {3, 224, 32, 3, 2},
    {3, 224, 32, 5, 1},
    // SqueezeNet 1.1's stem and VGG's first convolution: 64 channels.
    {3, 224, 64, 3, 2},
    {3, 224, 64, 3, 1},
    // 1x1s over 14x14 and 7x7 images (EfficientNet's, MobileNet's last stages): with file
    // weights, output channels in the vector lanes (pointwise_channel_lanes.h).
    {112, 14, 672, 1, 1},
    {672, 14, 112, 1, 1},
    {192, 7, 1152, 1, 1},
    {1152, 7, 192, 1, 1},
    {320, 7, 1280, 1, 1},
};

template <bool kFileWeights>
void BM_conv(benchmark::State& state) {
  const Shape& s = kShapes[state.range(0)];
  const std::int64_t pad = s.kernel / 2;
  Tensor x = filled({1, s.in, s.size, s.size}, 0.37f);
  Tensor w = filled({s.out, s.in, s.kernel, s.kernel}, 0.11f);
  if constexpr (kFileWeights) w = read_only(w);
  for (auto _ : state) {
    IValue out =
        symbolite::ops::run_op("aten::conv2d", {x, w, IValue(), IValue::list({s.stride, s.stride}),
                                                IValue::list({pad, pad}), IValue::list({1, 1}), 1});
    benchmark::DoNotOptimize(out);
  }
  state.SetLabel(std::to_string(s.in) + "->" + std::to_string(s.out) + " " +
                 std::to_string(s.size) + "^2 k" + std::to_string(s.kernel) + " s" +
                 std::to_string(s.stride));
}

void shapes(benchmark::internal::Benchmark* b) {
  symbolite::bench::shape_indices(b, std::size(kShapes));
}

BENCHMARK(BM_conv<true>)->Name("onednn")->Apply(shapes);
BENCHMARK(BM_conv<false>)->Name("im2col")->Apply(shapes);

}  // namespace

BENCHMARK_MAIN();
