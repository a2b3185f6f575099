// The module table: the module hierarchy as a tree, each node with its inclusive time (its
// own operators and everything below it) and exclusive time (its own operators only).
// Module paths come from the debug info (attribution.h), so the tree is the model's own
// `top(ResNet).layer1(Sequential).0(BasicBlock)` structure.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "symbolite/profiler/attribution.h"
#include "symbolite/profiler/op_event.h"

namespace symbolite::profiler {

struct ModuleNode {
  std::string label;      // "layer1(Sequential)"
  std::string call_site;  // where its parent calls it, "model.py:42"; may be empty
  std::int64_t inclusive_ns = 0;
  std::int64_t exclusive_ns = 0;
  std::uint64_t ops = 0;             // operator calls inside, inclusive
  std::int64_t flops = 0;            // inclusive, over events that carry a FLOP count
  std::int64_t bytes_allocated = 0;  // inclusive
  std::vector<std::unique_ptr<ModuleNode>> children;  // in first-seen order

  ModuleNode& child(const std::string& label);
};

// The root is "top(Type)".
std::unique_ptr<ModuleNode> module_tree(const std::vector<OpEvent>& events, Attributor& attributor);
// `details` (EventDetail bits the events were recorded with) picks the columns shown.
std::string render_module_tree(const ModuleNode& root, std::uint32_t details = 0);
nlohmann::json module_tree_json(const ModuleNode& root, std::uint32_t details = 0);

// Folded stacks for flame-graph tools (flamegraph.pl, speedscope, inferno): one line per
// distinct module path + operator, with its total time in nanoseconds, so the stacks under a
// module add up to its inclusive time in the module tree (a module's self time is its own
// operators' lines):
//   top(Nested);level1(Level1);level2(Level2);aten::add 12345
std::string folded_stacks(const std::vector<OpEvent>& events, Attributor& attributor);

}  // namespace symbolite::profiler
