// The choice for products by file weights (ops/cpu/onednn_matmul.h): oneDNN's matmul
// primitive over the weights reordered once, taken when the weight is read-only bytes (a model
// file's), against oneDNN's sgemm, taken for the same weight in a buffer of its own — through
// `aten::linear` as a model calls it, on the linear shapes of ViT-B/32, Swin-T and ConvNeXt-T
// (tokens x in -> out). Google Benchmark prints the time per shape; docs/PERFORMANCE.md
// records a run.
//
//   SYMBOLITE_NUM_THREADS=1 build/bin/symbolite_linear_bench --benchmark_min_time=0.2
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
  std::int64_t tokens, in, out;
};

// ViT-B/32 (50 tokens: MLP, attention in-projection), Swin-T (49-token windows x 64 at
// 56x56 = 3136 rows; 196 at its third stage), ConvNeXt-T's MLPs (3136 and 196 positions).
const Shape kShapes[] = {
    {50, 768, 3072},  {50, 3072, 768},  {50, 768, 2304}, {3136, 96, 384},
    {196, 384, 1536}, {196, 1536, 384}, {49, 768, 3072}, {784, 192, 768},
};

template <bool kFileWeights>
void BM_linear(benchmark::State& state) {
  const Shape& s = kShapes[state.range(0)];
  Tensor x = filled({1, s.tokens, s.in}, 0.37f);
  Tensor w = filled({s.out, s.in}, 0.11f);
  Tensor b = filled({s.out}, 0.7f);
  if constexpr (kFileWeights) {
    w = read_only(w);
    b = read_only(b);
  }
  for (auto _ : state) {
    IValue out = symbolite::ops::run_op("aten::linear", {x, w, b});
    benchmark::DoNotOptimize(out);
  }
  state.SetLabel(std::to_string(s.tokens) + " x " + std::to_string(s.in) + " -> " +
                 std::to_string(s.out));
}

void shapes(benchmark::internal::Benchmark* b) {
  symbolite::bench::shape_indices(b, std::size(kShapes));
}

BENCHMARK(BM_linear<true>)->Name("matmul_primitive")->Apply(shapes);
BENCHMARK(BM_linear<false>)->Name("sgemm")->Apply(shapes);

}  // namespace

BENCHMARK_MAIN();
