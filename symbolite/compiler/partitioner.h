// The partitioner: which parts of a graph a delegate backend takes. It cuts each block into
// maximal runs of nodes the backend supports, in graph order; a run is a partition when it holds
// at least `min_operators` operators. Because a partition is a contiguous run of a block (graph
// order is a topological order), no value can leave it and come back: every partition can be
// replaced by one call. Nodes that only supply static arguments — constants, attribute reads
// (weights), lists of constants — do not break a run; they join the partition when everything
// that uses them is inside it.
//
// Every node the backend refuses is recorded with the backend's reason, so that a user (and
// `explain`, later) sees why a model was split where it was.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "symbolite/compiler/graph.h"

namespace symbolite::compiler {

// What a backend can take. `why_unsupported` returns nullopt for a node it supports, else a
// sentence saying why not ("aten::lstm is not an XNNPACK operator").
class BackendSupport {
 public:
  virtual ~BackendSupport() = default;
  virtual const std::string& name() const = 0;
  virtual std::optional<std::string> why_unsupported(const Node& node) const = 0;
};

struct Partition {
  std::size_t id = 0;
  std::vector<Node*> nodes;     // in graph order, all in one block; static-argument nodes included
  std::vector<Value*> inputs;   // used inside, defined outside, in order of first use
  std::vector<Value*> outputs;  // defined inside, used outside, in graph order
  std::size_t operators = 0;    // nodes other than static-argument ones
};

struct Rejection {
  Node* node = nullptr;
  std::string reason;
};

struct PartitionPlan {
  std::vector<Partition> partitions;
  std::vector<Rejection> rejected;  // in graph order
};

struct PartitionOptions {
  std::size_t min_operators = 1;  // smaller runs stay with the interpreter
};

// Does not change the graph.
PartitionPlan partition_graph(const Graph& graph, const BackendSupport& backend,
                              const PartitionOptions& options = {});

// Whether `node` only supplies a static argument (constant, attribute read, list of constants).
bool is_static_argument(const Node& node);

}  // namespace symbolite::compiler
