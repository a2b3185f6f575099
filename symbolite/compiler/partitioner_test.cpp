// Partitioning PyTorch-made models for the XNNPACK delegate, and the debug handles their
// delegate nodes get.
#include "symbolite/compiler/partitioner.h"

#include <unordered_set>

#include <gtest/gtest.h>

#include "symbolite/backends/xnnpack/xnnpack_support.h"
#include "symbolite/compiler/delegate_debug.h"
#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/passes/pass_registry.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::compiler {
namespace {

Program lifted(const std::string& stem) {
  return lift(mobile::ModelInfo::load(testing::fixture_path("models/" + stem + ".ptl")));
}

const Function& forward(const Program& program) {
  for (const auto& f : program.functions) {
    if (f.short_name() == "forward") return f;
  }
  throw std::runtime_error("no forward");
}

// Every partition is a run of one block with no refused node inside it, its inputs are defined
// outside and its outputs used outside; every operator is either taken or refused.
void expect_well_formed(const Graph& graph, const PartitionPlan& plan,
                        const BackendSupport& backend) {
  std::unordered_set<const Node*> taken;
  for (const auto& p : plan.partitions) {
    ASSERT_FALSE(p.nodes.empty());
    std::unordered_set<const Node*> members(p.nodes.begin(), p.nodes.end());
    Block* block = p.nodes.front()->owning_block();
    for (const Node* n = p.nodes.front(); n != p.nodes.back(); n = n->next()) {
      EXPECT_TRUE(is_static_argument(*n) || members.count(n) != 0)
          << "a foreign operator inside partition " << p.id;
    }
    for (const Node* n : p.nodes) {
      EXPECT_EQ(n->owning_block(), block);
      EXPECT_TRUE(is_static_argument(*n) || !backend.why_unsupported(*n)) << n->qualified_kind();
      EXPECT_TRUE(taken.insert(n).second) << "node in two partitions";
    }
    for (const Value* v : p.inputs) EXPECT_EQ(members.count(v->node()), 0u);
    for (const Value* v : p.outputs) EXPECT_EQ(members.count(v->node()), 1u);
  }
  std::size_t operators = 0, taken_ops = 0;
  for_each_node(graph.block(), [&](Node* n) {
    if (!is_static_argument(*n)) ++operators;
    if (!is_static_argument(*n) && taken.count(n)) ++taken_ops;
  });
  EXPECT_EQ(taken_ops + plan.rejected.size(), operators);
}

TEST(Partitioner, TakesWhatXnnpackSupportsAndSaysWhyNotTheRest) {
  backends::XnnpackSupport xnnpack;
  Program program = lifted("conv1d");
  const Function& fn = forward(program);
  PartitionPlan plan = partition_graph(*fn.graph, xnnpack);
  expect_well_formed(*fn.graph, plan, xnnpack);
  // conv1d has no XNNPACK node: only the relus between the convolutions are taken.
  ASSERT_EQ(plan.partitions.size(), 2u);
  for (const auto& p : plan.partitions) {
    EXPECT_EQ(p.operators, 1u);
    ASSERT_EQ(p.inputs.size(), 1u);
    EXPECT_EQ(p.inputs[0]->node()->kind(), "aten::conv1d");
  }
  bool saw_conv = false;
  for (const auto& r : plan.rejected) {
    if (r.node->kind() == "aten::conv1d") {
      saw_conv = true;
      EXPECT_EQ(r.reason, r.node->qualified_kind() + " has no XNNPACK equivalent");
    }
  }
  EXPECT_TRUE(saw_conv);
}

TEST(Partitioner, WellFormedOnEveryFixture) {
  backends::XnnpackSupport xnnpack;
  for (const char* stem : {"nested", "lstm", "encoder", "pooling", "shape_ops"}) {
    Program program = lifted(stem);
    for (const auto& fn : program.functions) {
      SCOPED_TRACE(fn.qualified_name);
      expect_well_formed(*fn.graph, partition_graph(*fn.graph, xnnpack), xnnpack);
    }
  }
}

TEST(Partitioner, MinimumOperatorsLeavesSmallRunsToTheInterpreter) {
  backends::XnnpackSupport xnnpack;
  Program program = lifted("pooling");
  const Function& fn = forward(program);
  auto all = partition_graph(*fn.graph, xnnpack);
  auto big = partition_graph(*fn.graph, xnnpack, PartitionOptions{3});
  ASSERT_LT(big.partitions.size(), all.partitions.size());
  for (const auto& p : big.partitions) EXPECT_GE(p.operators, 3u);
}

TEST(DelegateDebug, EveryDelegateNodeGetsAHandleWithItsOrigins) {
  backends::XnnpackSupport xnnpack;
  Program program = lifted("pooling");
  const Function& fn = forward(program);
  PartitionPlan plan = partition_graph(*fn.graph, xnnpack);
  debuginfo::DebugHandleCounter counter(1000);
  debuginfo::DebugInfoRecorder recorder(counter);
  std::size_t expected = 0;
  std::vector<DelegateNodeDebug> nodes;
  for (const auto& p : plan.partitions) {
    expected += p.operators;
    auto recorded = record_delegate_nodes(p, recorder);
    nodes.insert(nodes.end(), recorded.begin(), recorded.end());
  }
  ASSERT_EQ(nodes.size(), expected);
  auto map = recorder.stop_recording();
  ASSERT_EQ(map.size(), expected);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(nodes[i].handle, 1000 + static_cast<std::int64_t>(i));
    const auto& info = map.at(nodes[i].handle);
    EXPECT_EQ(info.node_kind, nodes[i].node->kind());
    EXPECT_EQ(info.range.start(), nodes[i].node->source_range().start());
    EXPECT_EQ(info.call_stack, nodes[i].node->call_stack());
    EXPECT_EQ(nodes[i].origins.size(), nodes[i].node->origins().size());
    // The node's module hierarchy is what a failure inside the delegate will print.
    EXPECT_NE(
        nodes[i].node->module_hierarchy(program.top_type, "forward").find("top(Pools)::forward."),
        std::string::npos);
  }
}

}  // namespace
}  // namespace symbolite::compiler

namespace symbolite::compiler {
namespace {

// encoder.ptl (PyTorch's file) reads `self.training` for its dropout calls: folding turns those
// reads into the constant False data.pkl holds, so each aten::dropout gets a constant `train`
// argument; every run fixture still gives PyTorch's results (ExportedRun runs `--passes all`).
TEST(FoldModuleAttributes, TrainingReadsBecomeConstantsAndDeadBranchesGo) {
  backends::XnnpackSupport xnnpack;
  Program program = lifted("encoder");
  Function& fn = *program.find("__torch__.model_defs.EncoderBlock.forward");
  auto before = partition_graph(*fn.graph, xnnpack);
  std::size_t training_reads = 0;
  for_each_node(fn.graph->block(), [&](Node* n) {
    training_reads += n->kind() == "prim::GetAttr" && n->has_attr("name") &&
                      n->attr("name").as_string() == "training";
  });
  ASSERT_GT(training_reads, 0u);
  auto results = run_passes(program, {"fold-attributes", "dce"}, true);
  EXPECT_GE(results[0].changes, training_reads);
  std::size_t dropouts = 0;
  for_each_node(fn.graph->block(), [&](Node* n) {
    EXPECT_FALSE(n->kind() == "prim::GetAttr" && n->has_attr("name") &&
                 n->attr("name").as_string() == "training");
    if (n->kind() == "aten::dropout") {
      ++dropouts;
      const Node* train = n->input(2)->node();
      ASSERT_EQ(train->kind(), "prim::Constant");
      EXPECT_FALSE(train->attr("value").as_bool());
    }
  });
  EXPECT_GT(dropouts, 0u);
  EXPECT_LE(partition_graph(*fn.graph, xnnpack).partitions.size(), before.partitions.size());
}

TEST(FoldModuleAttributes, AnAttributeTheModelWritesIsNotFolded) {
  Program program = lifted("encoder");
  Function& fn = *program.find("__torch__.model_defs.EncoderBlock.forward");
  // Pretend a method writes `training`: nothing may be folded then.
  Node* set = fn.graph->create("prim::SetAttr", {fn.graph->inputs()[0], fn.graph->inputs()[0]}, 0);
  set->set_attr("name", pickle::Value::string("training"));
  set->set_attr("slot", pickle::Value::integer(0));
  fn.graph->block()->prepend(set);
  auto training_reads = [&] {
    std::size_t count = 0;
    for_each_node(fn.graph->block(), [&](Node* n) {
      count += n->kind() == "prim::GetAttr" && n->has_attr("name") &&
               n->attr("name").as_string() == "training";
    });
    return count;
  };
  std::size_t reads_before = training_reads();
  ASSERT_GT(reads_before, 0u);
  run_passes(program, {"fold-attributes"}, false);
  std::size_t reads_after = training_reads();
  EXPECT_EQ(reads_after, reads_before);
}

}  // namespace
}  // namespace symbolite::compiler
