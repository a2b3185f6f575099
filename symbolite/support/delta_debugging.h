// Delta debugging (Zeller and Hildebrandt's ddmin): from a set of items for which a test fails,
// a 1-minimal subset that still fails — removing any one item makes it pass. `minify` uses it
// over the nodes a lowering delegates, to find the node at fault.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace symbolite {

struct DeltaDebuggingResult {
  std::vector<std::size_t> items;  // 1-minimal (or as far as max_tests allowed)
  std::size_t tests = 0;           // calls of `fails`
  bool complete = true;            // false when max_tests stopped it early
};

// `fails(items)` must hold for the whole input. Subsets are tested in the order they would be
// chosen by ddmin: halves, then complements, with finer splits when neither fails.
DeltaDebuggingResult delta_debug(std::vector<std::size_t> items,
                                 const std::function<bool(const std::vector<std::size_t>&)>& fails,
                                 std::size_t max_tests = 1000);

}  // namespace symbolite
