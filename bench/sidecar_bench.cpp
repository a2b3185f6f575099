// Times the sidecar: opening it, and symbolicating every handle of the model (cold: the first
// pass after opening, which decodes records; warm: a second pass over cached sources and call
// stacks). Prints one JSON object; bench/run_sidecar_bench.py runs it beside PyTorch.
//
//   symbolite_sidecar_bench MODEL.symdbg [REPEATS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "symbolite/debuginfo/sidecar_reader.h"
#include "symbolite/debuginfo/symbolicator.h"

using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace symbolite::debuginfo;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.symdbg [REPEATS]\n", argv[0]);
    return 2;
  }
  const int repeats = argc > 2 ? std::stoi(argv[2]) : 7;
  std::vector<double> open_s, cold_s, warm_s, resolve_s, random_s;
  std::size_t handles = 0;
  std::size_t traceback_bytes = 0;
  for (int r = 0; r < repeats; ++r) {
    auto start = Clock::now();
    auto sidecar = SidecarReader::open(argv[1]);
    open_s.push_back(seconds_since(start));
    auto all = sidecar->handles();
    handles = all.size();
    Symbolicator symbolicator(sidecar);
    for (double* out : {&cold_s.emplace_back(), &warm_s.emplace_back()}) {
      traceback_bytes = 0;
      start = Clock::now();
      for (auto h : all) traceback_bytes += symbolicator.symbolicate(h).traceback.size();
      *out = seconds_since(start);
    }
    std::size_t frames = 0;
    start = Clock::now();
    for (auto h : all) frames += symbolicator.resolve(h).frames.size();
    resolve_s.push_back(seconds_since(start));
    if (frames == 0 && handles != 0) return 1;
    // Random order: each lookup may need another block inflated (a crash log's handles).
    std::vector<DebugHandle> shuffled = all;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(42));
    start = Clock::now();
    for (auto h : shuffled) frames += symbolicator.resolve(h).frames.size();
    random_s.push_back(seconds_since(start));
  }
  fmt::print(
      "{{\"handles\": {}, \"open_ms\": {:.3f}, \"cold_pass_ms\": {:.3f}, \"warm_pass_ms\": {:.3f}, "
      "\"cold_handles_per_s\": {:.0f}, \"warm_handles_per_s\": {:.0f}, "
      "\"resolve_handles_per_s\": {:.0f}, \"resolve_random_handles_per_s\": {:.0f}, "
      "\"traceback_bytes\": {}}}\n",
      handles, median(open_s) * 1e3, median(cold_s) * 1e3, median(warm_s) * 1e3,
      handles / median(cold_s), handles / median(warm_s), handles / median(resolve_s),
      handles / median(random_s), traceback_bytes);
  return 0;
}
