// Node isolation: a model cut down to one node, for `minify`'s graph-level step. Once delta
// debugging has found the delegated node at fault, the smallest model that still fails the
// same way is that node alone, fed the values it received in the real run:
//
//   probe     `method` returns the node's dynamic inputs (a tuple when several), so one run
//             of the probe on the user's inputs captures them;
//   isolated  `method(self, input_0, ...)` runs just the node on those inputs and returns its
//             results; the constants and module attributes it reads (weights) stay as they were.
//
// Both keep the original's module tree, debug records and the node's source range and call
// stack, so a failure of the isolated model still points at the user's source line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "symbolite/compiler/lowering/lowering.h"

namespace symbolite::compiler {

struct IsolatedNode {
  std::vector<std::uint8_t> probe;
  std::vector<std::uint8_t> isolated;
  std::vector<Type> input_types;  // of the isolated method's inputs after self
  std::size_t nodes_before = 0;   // nodes of the method's graph, nested blocks included
  std::size_t nodes_after = 0;    // of the isolated method's graph
};

// Cuts the model at `input` down to candidate `candidate` (an index into
// LoweringReport::candidates for `support` and `options`, whose passes run first, as
// lowering runs them). Error(kUsage) for an index out of range; Error(kUnsupported) for a
// node inside a loop or branch (its inputs are not values of the method itself).
IsolatedNode isolate_candidate(const std::string& input, const BackendSupport& support,
                               const LoweringOptions& options, std::size_t candidate);

}  // namespace symbolite::compiler
