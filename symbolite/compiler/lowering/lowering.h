// Lowering: `symbolite lower`. Cuts a method into partitions a delegate backend takes
// (partitioner.h: every supported run with `--auto`, or the nodes of named submodules with
// `--module`), turns each into a delegate program (delegate_program_builder.h) whose every
// operator has a delegate debug handle (delegate_debug.h), and replaces it by a call to a new
// lowered module — an attribute `__lowered_<i>` of the top module, of the class lowered_class.h
// makes — in the shape PyTorch's to_backend generates, so that PyTorch 1.13 with
// libsymbolite_torch.so loads and runs the file as symbolite does.
//
// Debug info: the delegate handles are recorded first (as PyTorch does), from the same counter
// as the instruction handles; each keeps its node's source range and call stack (relative to
// the top module) and the kind of every node it fused. The call's own instructions get ranges
// in the lowered class's template and a call-stack frame into the lowered module, so a failure
// inside the delegate composes to `top(Net)::forward.__lowered_0(Net)::forward.layer1(...)...`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symbolite/compiler/model_export.h"
#include "symbolite/compiler/partitioner.h"
#include "symbolite/compiler/program.h"
#include "symbolite/debuginfo/debug_info_recorder.h"
#include "symbolite/mobile/model_info.h"

namespace symbolite::compiler {

struct LoweringOptions {
  std::string backend;               // the runtime backend's name: "xnnpack", "eager", ...
  std::vector<std::string> modules;  // empty: every supported run (--auto); else module paths
  std::string method = "forward";
  PartitionOptions partition;
  HandleScheme handles = HandleScheme::kCounter;
  // Passes run before partitioning (run_passes names). The default folds module attributes
  // such as `training` and removes what they make dead — BatchNorm's training-only branches,
  // which would otherwise split every partition at every BatchNorm.
  std::vector<std::string> passes = {"all"};
  // When set, only these candidates (indices into LoweringReport::candidates) may be
  // delegated: how `minify` lowers part of what the backend takes.
  std::optional<std::vector<std::size_t>> only_candidates;
};

struct LoweredPartition {
  std::string attribute;                        // "__lowered_0"
  std::vector<std::string> operators;           // "aten::conv2d", per delegate node
  std::vector<debuginfo::DebugHandle> handles;  // per delegate node
  std::vector<std::string> module_hierarchies;  // per delegate node, relative to the top
  std::size_t inputs = 0;
  std::size_t outputs = 0;
  std::size_t weights = 0;
  std::size_t program_bytes = 0;
};

struct LoweringRejection {
  std::string node;  // "aten::lstm"
  std::string reason;
  std::string module_hierarchy;  // where the node came from
  std::string source;            // "model.py:12:8", empty when unknown
};

// A node the backend would take (before `only_candidates` narrows), in graph order.
struct LoweringCandidate {
  std::string node;  // "aten::relu"
  std::string module_hierarchy;
  std::string source;  // "model.py:12:8", empty when unknown
};

struct LoweringReport {
  std::vector<PassResult> passes;
  std::vector<LoweringCandidate> candidates;
  std::vector<LoweredPartition> partitions;
  std::vector<LoweringRejection> rejected;
  std::size_t functions = 0;
  std::size_t instructions = 0;
};

// The nodes `support` would take in `graph`, narrowed to `modules` (empty: all), in graph
// order: what LoweringReport::candidates lists and `only_candidates` indexes.
std::vector<Node*> lowering_candidates(Graph& graph, const BackendSupport& support,
                                       const std::vector<std::string>& modules);

// Lowers `program` in place (its method graph, root object and functions) with handles from
// `recorder`. Error(kUsage) for a module path that names no node; Error(kUnsupported) for a
// partition that cannot be carried into a payload.
LoweringReport lower_program(Program& program, const BackendSupport& support,
                             const LoweringOptions& options,
                             debuginfo::DebugInfoRecorder& recorder);

struct LoweredModelBytes {
  LoweringReport report;
  std::vector<std::uint8_t> bytes;  // the lowered .ptl
};

// Reads `input` and lowers it: data.pkl with the lowered modules, new bytecode and debug
// records; every other record copied.
LoweredModelBytes lower_model_bytes(const std::string& input, const BackendSupport& support,
                                    const LoweringOptions& options);

// The .ptl of `program` as lifted from `model` and emitted as `emitted`: data.pkl from its
// root object, debug records when `model` had them, every other record of `model` copied.
std::vector<std::uint8_t> program_model_bytes(const mobile::ModelInfo& model,
                                              const Program& program,
                                              const EmittedProgram& emitted);

// The same, written to `output`.
LoweringReport lower_model(const std::string& input, const std::string& output,
                           const BackendSupport& support, const LoweringOptions& options);

}  // namespace symbolite::compiler
