// The benchmarks' tables of shapes as Google Benchmark arguments: one run per shape, its
// index in the table the argument (conv_bench.cpp, linear_bench.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include <benchmark/benchmark.h>

namespace symbolite::bench {

// One run per shape of a table of `count` shapes, timed in microseconds.
inline void shape_indices(benchmark::internal::Benchmark* b, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) b->Arg(static_cast<std::int64_t>(i));
  b->Unit(benchmark::kMicrosecond);
}

}  // namespace symbolite::bench
