#include "symbolite/support/delta_debugging.h"

#include <algorithm>

namespace symbolite {

DeltaDebuggingResult delta_debug(std::vector<std::size_t> items,
                                 const std::function<bool(const std::vector<std::size_t>&)>& fails,
                                 std::size_t max_tests) {
  DeltaDebuggingResult result;
  auto test = [&](const std::vector<std::size_t>& subset) {
    if (result.tests >= max_tests) {
      result.complete = false;
      return false;
    }
    ++result.tests;
    return fails(subset);
  };
  std::size_t n = 2;
  while (items.size() >= 2 && result.complete) {
    const std::size_t size = items.size();
    std::vector<std::vector<std::size_t>> chunks;
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t begin = i * size / n, end = (i + 1) * size / n;
      if (begin < end) chunks.emplace_back(items.begin() + begin, items.begin() + end);
    }
    bool reduced = false;
    for (const auto& chunk : chunks) {
      if (test(chunk)) {
        items = chunk;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && chunks.size() > 2) {
      for (std::size_t i = 0; i < chunks.size() && !reduced; ++i) {
        std::vector<std::size_t> complement;
        for (std::size_t j = 0; j < chunks.size(); ++j) {
          if (j != i) complement.insert(complement.end(), chunks[j].begin(), chunks[j].end());
        }
        if (test(complement)) {
          items = std::move(complement);
          n = std::max<std::size_t>(n - 1, 2);
          reduced = true;
        }
      }
    }
    if (!reduced) {
      if (n >= size) break;
      n = std::min(n * 2, size);
    }
  }
  result.items = std::move(items);
  return result;
}

}  // namespace symbolite
