// What operator fusion gains (mobile/operator_fusion.h), in one process: the model loaded
// twice, once as loaded (fused) and once with LoadedModel::drop_fusion(), run in alternating
// rounds on the same input so both see the same machine. Prints the median latency of each,
// the gain, and whether the outputs are the same bits.
//
//   symbolite_fusion_bench MODEL.ptl INPUT.npy [ROUNDS]    (SYMBOLITE_NUM_THREADS sets threads)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/result_tensors.h"

namespace {

using symbolite::ops::IValue;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool same_bits(const IValue& a, const IValue& b) {
  auto ta = symbolite::runtime::result_tensors(a);
  auto tb = symbolite::runtime::result_tensors(b);
  if (ta.size() != tb.size()) return false;
  for (std::size_t i = 0; i < ta.size(); ++i) {
    auto x = ta[i].contiguous();
    auto y = tb[i].contiguous();
    if (x.sizes() != y.sizes() || x.dtype() != y.dtype() ||
        std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL.ptl INPUT.npy [ROUNDS]\n", argv[0]);
    return 2;
  }
  try {
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 20;
    auto fused = symbolite::mobile::LoadedModel::load(argv[1]);
    auto unfused = symbolite::mobile::LoadedModel::load(argv[1]);
    unfused.drop_fusion();
    const IValue input = symbolite::runtime::read_input_file(argv[2]);
    symbolite::runtime::Interpreter a(fused);
    symbolite::runtime::Interpreter b(unfused);
    const bool same = same_bits(a.run_method("forward", {input}), b.run_method("forward", {input}));
    std::vector<double> ta;
    std::vector<double> tb;
    auto time = [&input](symbolite::runtime::Interpreter& in, std::vector<double>& out) {
      for (int i = 0; i < 5; ++i) {
        auto start = std::chrono::steady_clock::now();
        in.run_method("forward", {input});
        out.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
      }
    };
    for (int r = 0; r < rounds; ++r) {
      time(a, ta);
      time(b, tb);
    }
    const double f = median(ta);
    const double u = median(tb);
    std::printf("%s: fused %.3f ms, unfused %.3f ms, %.1f%% faster; outputs %s\n", argv[1], f, u,
                100.0 * (1.0 - f / u), same ? "the same bits" : "DIFFER");
    return same ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
