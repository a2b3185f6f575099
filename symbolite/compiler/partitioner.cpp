#include "symbolite/compiler/partitioner.h"

#include <algorithm>
#include <unordered_set>

namespace symbolite::compiler {
namespace {

class Partitioner {
 public:
  Partitioner(const BackendSupport& backend, const PartitionOptions& options)
      : backend_(backend), options_(options) {}

  PartitionPlan run(const Graph& graph) {
    scan(graph.block());
    return std::move(plan_);
  }

 private:
  void scan(Block* block) {
    std::vector<Node*> run;
    for (Node* node = block->first(); node != nullptr && !node->is_return(); node = node->next()) {
      if (is_static_argument(*node)) {
        run.push_back(node);
        continue;
      }
      if (auto why = backend_.why_unsupported(*node)) {
        close(run);
        plan_.rejected.push_back(Rejection{node, *why});
        for (Block* inner : node->blocks()) scan(inner);
        continue;
      }
      run.push_back(node);
    }
    close(run);
  }

  // Turns the run into a partition if it has enough operators; static-argument nodes join it
  // only when every use of their result is inside.
  void close(std::vector<Node*>& run) {
    std::unordered_set<const Node*> members;
    std::size_t operators = 0;
    for (Node* n : run) {
      if (!is_static_argument(*n)) {
        members.insert(n);
        ++operators;
      }
    }
    if (operators >= options_.min_operators && operators > 0) {
      // Static arguments, innermost first (a list of constants before the constants it uses).
      for (auto it = run.rbegin(); it != run.rend(); ++it) {
        Node* n = *it;
        if (!is_static_argument(*n)) continue;
        bool inside = true;
        for (const Value* out : n->outputs()) {
          for (const Use& use : out->uses()) inside = inside && members.contains(use.user);
        }
        if (inside && !n->outputs().empty()) members.insert(n);
      }
      Partition partition;
      partition.id = plan_.partitions.size();
      partition.operators = operators;
      for (Node* n : run) {
        if (members.contains(n)) partition.nodes.push_back(n);
      }
      connect(partition, members);
      plan_.partitions.push_back(std::move(partition));
    }
    run.clear();
  }

  static void connect(Partition& partition, const std::unordered_set<const Node*>& members) {
    std::unordered_set<const Value*> seen;
    for (Node* n : partition.nodes) {
      for (Value* in : n->inputs()) {
        if (!members.contains(in->node()) && seen.insert(in).second) partition.inputs.push_back(in);
      }
    }
    for (Node* n : partition.nodes) {
      for (Value* out : n->outputs()) {
        bool escapes = std::any_of(out->uses().begin(), out->uses().end(),
                                   [&](const Use& use) { return !members.contains(use.user); });
        if (escapes) partition.outputs.push_back(out);
      }
    }
  }

  const BackendSupport& backend_;
  const PartitionOptions& options_;
  PartitionPlan plan_;
};

}  // namespace

bool is_static_argument(const Node& node) {
  const std::string& kind = node.kind();
  if (kind == "prim::Constant" || kind == "prim::GetAttr") return true;
  if (kind == "prim::ListConstruct") {
    return std::all_of(node.inputs().begin(), node.inputs().end(),
                       [](const Value* v) { return v->node()->kind() == "prim::Constant"; });
  }
  return false;
}

PartitionPlan partition_graph(const Graph& graph, const BackendSupport& backend,
                              const PartitionOptions& options) {
  return Partitioner(backend, options).run(graph);
}

}  // namespace symbolite::compiler
