// Chooses the float32 GEMM behind ops/gemm.h: OpenBLAS's cblas_sgemm against oneDNN's
// dnnl_sgemm, one thread each, on the product shapes the zoo models run (convolutions as
// im2col GEMMs at 224x224, and a classifier layer). Google Benchmark prints time and GFLOP/s
// per shape; docs/PERFORMANCE.md records the run.
//
//   build/bin/symbolite_gemm_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dnnl.h>

#include <cstdint>
#include <vector>

extern "C" void omp_set_num_threads(int num_threads);

namespace {

struct Shape {
  std::int64_t m, n, k;
};

// M = output channels, N = output pixels, K = input channels x kernel area.
const Shape kShapes[] = {
    {16, 12544, 27},   // mobilenet_v3_small stem, 3x3 stride 2
    {64, 3136, 576},   // resnet18 layer1, 3x3
    {128, 784, 1152},  // resnet18 layer2, 3x3
    {256, 196, 2304},  // resnet18 layer3, 3x3
    {512, 49, 4608},   // resnet18 layer4, 3x3
    {96, 3136, 16},    // 1x1 expansion
    {576, 49, 96},     // 1x1 at 7x7
    {1000, 1, 1024},   // classifier, batch 1
};

template <bool kOneDnn>
void BM_sgemm(benchmark::State& state) {
  omp_set_num_threads(1);
  const Shape& s = kShapes[state.range(0)];
  std::vector<float> a(static_cast<std::size_t>(s.m * s.k), 0.5f);
  std::vector<float> b(static_cast<std::size_t>(s.k * s.n), 0.25f);
  std::vector<float> c(static_cast<std::size_t>(s.m * s.n));
  for (auto _ : state) {
    if constexpr (kOneDnn) {
      dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, a.data(), s.k, b.data(), s.n, 0.0f, c.data(), s.n);
    } else {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m),
                  static_cast<int>(s.n), static_cast<int>(s.k), 1.0f, a.data(),
                  static_cast<int>(s.k), b.data(), static_cast<int>(s.n), 0.0f, c.data(),
                  static_cast<int>(s.n));
    }
    benchmark::DoNotOptimize(c.data());
  }
  state.SetLabel(std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * static_cast<double>(s.m * s.n * s.k) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

BENCHMARK(BM_sgemm<false>)->Name("openblas")->DenseRange(0, 7);
BENCHMARK(BM_sgemm<true>)->Name("onednn")->DenseRange(0, 7);

}  // namespace

BENCHMARK_MAIN();
