// fma_peak: this machine's peak float32 FLOP/s, the ceiling bench/run_peer_bench.py divides a
// model's achieved GFLOP/s by.
//
//   fma_peak [--seconds S] [--isa avx2] [--json]
//
// Each thread runs independent chains of vector FMAs (acc = acc * a + b; 2 FLOPs per lane)
// with enough accumulators to cover FMA latency on two FMA ports: 12 chains of 16 lanes with
// AVX-512 when the CPU has it, else 12 chains of 8 lanes with AVX2+FMA (chosen at run time with
// __builtin_cpu_supports; each kernel compiled with its own target attribute; `--isa avx2`
// forces the AVX2 kernel, to compare vector widths). Reports the
// GFLOP/s of one thread and of one thread per core (std::thread::hardware_concurrency()
// threads), each the best of several timed repetitions.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kChains = 12;

// FLOPs done by `iterations` rounds: kChains FMAs of `lanes` lanes, 2 FLOPs each.
double flops_of(std::int64_t iterations, int lanes) {
  return static_cast<double>(iterations) * kChains * lanes * 2.0;
}

__attribute__((target("avx512f"))) float fma_avx512(std::int64_t iterations) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(1.0f + 0.01f * static_cast<float>(c));
  const __m512 a = _mm512_set1_ps(0.999999f);
  const __m512 b = _mm512_set1_ps(1e-7f);
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  float lanes[16];
  _mm512_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

__attribute__((target("avx2,fma"))) float fma_avx2(std::int64_t iterations) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(1.0f + 0.01f * static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

struct Kernel {
  const char* isa;
  int lanes;
  float (*run)(std::int64_t);
};

Kernel pick_kernel(const std::string& force) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && force != "avx2") return {"avx512f", 16, fma_avx512};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {"avx2+fma", 8, fma_avx2};
  std::fprintf(stderr, "fma_peak: the CPU has neither AVX-512F nor AVX2+FMA\n");
  std::exit(1);
}

std::atomic<float> sink{0};

// GFLOP/s of `threads` threads each running `iterations` rounds at once (best of `repeats`).
double measure(const Kernel& k, int threads, std::int64_t iterations, int repeats) {
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) {
        }
        sink.store(k.run(iterations), std::memory_order_relaxed);
      });
    }
    while (ready.load() < threads) {
    }
    const auto start = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, flops_of(iterations, k.lanes) * threads / s / 1e9);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 0.2;  // per repetition
  bool json = false;
  std::string isa;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
    else if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
      seconds = std::atof(argv[++i]);
    else if (std::strcmp(argv[i], "--isa") == 0 && i + 1 < argc)
      isa = argv[++i];
    else {
      std::fprintf(stderr, "usage: fma_peak [--seconds S] [--isa avx2] [--json]\n");
      return 2;
    }
  }
  const Kernel k = pick_kernel(isa);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  // Calibrate: iterations that take about `seconds` on one thread.
  std::int64_t iterations = 1 << 20;
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    sink.store(k.run(iterations));
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > seconds / 4) {
      iterations = static_cast<std::int64_t>(static_cast<double>(iterations) * seconds / s);
      break;
    }
    iterations *= 2;
  }
  const int repeats = 5;
  const double one = measure(k, 1, iterations, repeats);
  const double all = measure(k, cores, iterations, repeats);
  if (json) {
    std::printf(
        "{\"isa\": \"%s\", \"lanes\": %d, \"gflops_1_thread\": %.2f, \"threads_all\": %d, "
        "\"gflops_all_threads\": %.2f}\n",
        k.isa, k.lanes, one, cores, all);
  } else {
    std::printf("%s (%d float32 lanes): 1 thread %.1f GFLOP/s; %d threads %.1f GFLOP/s\n", k.isa,
                k.lanes, one, cores, all);
  }
  return 0;
}
