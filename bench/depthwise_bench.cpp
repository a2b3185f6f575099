// Chooses between the three depthwise convolution kernels behind ops/cpu/depthwise_conv.h:
// channel planes one at a time (grouped_by_plane.h), channels interleaved in vector lanes
// (depthwise_interleaved.h) and planes row by row (depthwise_direct.h), one thread, on the
// depthwise shapes of MobileNet v2/v3, MNASNet, ShuffleNet and EfficientNet at 224x224 and a
// few in between. All give the same bits; depthwise_conv.cpp's `choose` encodes where each
// wins. Google Benchmark prints the
// time per shape; docs/PERFORMANCE.md records a run. `grouped` runs the plane-by-plane kernel
// on the grouped 3x3 convolutions of RegNet-Y-400MF (8 channels a group) and ResNeXt-50
// (4), which conv_ops.cpp sends to it rather than to im2col (measured there through the
// model: docs/PERFORMANCE.md).
//
//   SYMBOLITE_NUM_THREADS=1 build/bin/symbolite_depthwise_bench --benchmark_min_time=0.1
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "symbolite/ops/cpu/depthwise_direct.h"
#include "symbolite/ops/cpu/depthwise_interleaved.h"
#include "symbolite/ops/cpu/grouped_by_plane.h"

namespace {

using symbolite::ops::nn::ConvGeometry;

struct Shape {
  std::int64_t channels, size, kernel, stride;
};

const Shape kShapes[] = {
    {16, 112, 3, 2}, {32, 112, 3, 1}, {72, 56, 3, 2},  {144, 56, 3, 1}, {88, 28, 3, 1},
    {32, 28, 3, 1},  {64, 24, 3, 1},  {64, 24, 5, 1},  {128, 17, 3, 1}, {96, 28, 5, 1},
    {128, 35, 3, 1}, {128, 35, 5, 1}, {240, 20, 3, 1}, {240, 20, 5, 1}, {240, 14, 5, 1},
    {288, 14, 5, 2}, {576, 7, 5, 1},  {960, 7, 3, 1},  {96, 112, 3, 2}, {144, 56, 5, 2},
    {240, 28, 5, 1}, {96, 56, 7, 1},  {384, 14, 7, 1}, {144, 56, 3, 2}, {48, 56, 3, 1},
    {24, 112, 3, 2}, {16, 112, 3, 1},
};

enum class Kernel { kByPlane, kInterleaved, kDirect };

template <Kernel kKernel>
void BM_depthwise(benchmark::State& state) {
  const Shape& s = kShapes[state.range(0)];
  const std::int64_t pad = s.kernel / 2;
  ConvGeometry g{1, s.channels, s.size,   s.size, s.channels, 1, s.kernel, s.kernel,  0,
                 0, s.stride,   s.stride, pad,    pad,        1, 1,        s.channels};
  g.oh = g.ow = (s.size + 2 * pad - s.kernel) / s.stride + 1;
  std::vector<float> in(static_cast<std::size_t>(s.channels * s.size * s.size));
  std::vector<float> weight(static_cast<std::size_t>(s.channels * s.kernel * s.kernel));
  std::vector<float> bias(static_cast<std::size_t>(s.channels), 0.5f);
  std::vector<float> out(static_cast<std::size_t>(s.channels * g.oh * g.ow));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.37f * static_cast<float>(i));
  for (std::size_t i = 0; i < weight.size(); ++i)
    weight[i] = std::cos(0.11f * static_cast<float>(i));
  for (auto _ : state) {
    if constexpr (kKernel == Kernel::kInterleaved) {
      symbolite::ops::nn::depthwise_conv2d_interleaved(in.data(), weight.data(), bias.data(),
                                                       out.data(), g, nullptr);
    } else if constexpr (kKernel == Kernel::kDirect) {
      symbolite::ops::nn::depthwise_conv2d_direct(in.data(), weight.data(), bias.data(), out.data(),
                                                  g, nullptr);
    } else {
      symbolite::ops::nn::grouped_conv2d_by_plane(in.data(), weight.data(), bias.data(), out.data(),
                                                  g, nullptr);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(std::to_string(s.channels) + "x" + std::to_string(s.size) + "^2 k" +
                 std::to_string(s.kernel) + " s" + std::to_string(s.stride));
}

void shapes(benchmark::internal::Benchmark* b) {
  for (std::size_t i = 0; i < std::size(kShapes); ++i) b->Arg(static_cast<std::int64_t>(i));
}

// {channels, size, channels a group}: 3x3, stride 1, padding 1, as many outputs as inputs.
const std::int64_t kGroupedShapes[][3] = {{128, 56, 4}, {256, 28, 8}, {208, 14, 8}, {440, 7, 8}};

void BM_grouped(benchmark::State& state) {
  const auto& s = kGroupedShapes[state.range(0)];
  const std::int64_t c = s[0], size = s[1], cg = s[2];
  ConvGeometry g{1, c, size, size, c, cg, 3, 3, size, size, 1, 1, 1, 1, 1, 1, c / cg};
  std::vector<float> in(static_cast<std::size_t>(c * size * size));
  std::vector<float> weight(static_cast<std::size_t>(c * cg * 9));
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.37f * static_cast<float>(i));
  for (std::size_t i = 0; i < weight.size(); ++i)
    weight[i] = std::cos(0.11f * static_cast<float>(i));
  for (auto _ : state) {
    symbolite::ops::nn::grouped_conv2d_by_plane(in.data(), weight.data(), nullptr, out.data(), g,
                                                nullptr);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(std::to_string(c) + "x" + std::to_string(size) + "^2 k3, " + std::to_string(cg) +
                 " channels a group");
}

BENCHMARK(BM_depthwise<Kernel::kByPlane>)->Name("by_plane")->Apply(shapes);
BENCHMARK(BM_depthwise<Kernel::kInterleaved>)->Name("interleaved")->Apply(shapes);
BENCHMARK(BM_depthwise<Kernel::kDirect>)->Name("direct")->Apply(shapes);
BENCHMARK(BM_grouped)->Name("grouped")->DenseRange(0, std::size(kGroupedShapes) - 1);

}  // namespace

BENCHMARK_MAIN();
