#include "symbolite/compiler/graph.h"

#include <gtest/gtest.h>

#include "symbolite/compiler/graph_printer.h"
#include "symbolite/compiler/passes/constant_deduplication.h"
#include "symbolite/compiler/passes/dead_code_elimination.h"
#include "symbolite/compiler/rewrite.h"
#include "symbolite/compiler/verifier.h"
#include "symbolite/support/error.h"

namespace symbolite::compiler {
namespace {

// graph(%x, %y): %t = aten::mm(%x, %y); %one = 1; %r = aten::add.Tensor(%y, %t, %one); return %r
struct MmAdd {
  Graph graph;
  Value* x;
  Value* y;
  Node* mm;
  Node* add;
  MmAdd() {
    Block* b = graph.block();
    x = b->add_input("Tensor");
    y = b->add_input("Tensor");
    mm = b->append(graph.create("aten::mm", {x, y}));
    Node* one = b->append(graph.create_constant(pickle::Value::integer(1)));
    add = b->append(graph.create("aten::add", {y, mm->output(), one->output()}));
    add->set_overload("Tensor");
    b->add_output(add->output());
  }
};

debuginfo::SourceRange range_in(const std::string& text, std::size_t start, std::size_t end) {
  auto source = std::make_shared<debuginfo::Source>(Bytes::copy_of(text), std::string("m.py"), 1);
  return debuginfo::SourceRange(source, start, end);
}

TEST(Graph, UseListsFollowEdits) {
  MmAdd g;
  EXPECT_EQ(g.mm->output()->uses().size(), 1u);
  EXPECT_EQ(g.y->uses().size(), 2u);
  g.mm->output()->replace_all_uses_with(g.x);
  EXPECT_TRUE(g.mm->output()->uses().empty());
  EXPECT_EQ(g.add->input(1), g.x);
  EXPECT_EQ(g.x->uses().size(), 2u);
  verify(g.graph);
  g.mm->destroy();
  EXPECT_TRUE(g.y->uses().size() == 1u);
  verify(g.graph);
  EXPECT_EQ(g.graph.node_count(), 2u);
}

TEST(Graph, DestroyingAUsedNodeIsRefused) {
  MmAdd g;
  EXPECT_THROW(g.mm->destroy(), Error);
}

TEST(Graph, VerifierRejectsAUseBeforeItsDefinition) {
  MmAdd g;
  g.mm->move_after(g.add);  // add now uses %t before mm defines it
  EXPECT_THROW(verify(g.graph), Error);
}

TEST(Graph, VerifierRejectsAnIfWithoutTwoBlocks) {
  Graph graph;
  Value* c = graph.block()->add_input("bool");
  Node* node = graph.block()->append(graph.create("prim::If", {c}, 0));
  node->add_block();
  EXPECT_THROW(verify(graph), Error);
  node->add_block();
  verify(graph);
}

TEST(Graph, CloneKeepsEverythingItPrints) {
  MmAdd g;
  g.mm->set_origin(NodeOrigin{range_in("a = x @ y\n", 4, 9), nullptr});
  auto copy = g.graph.clone();
  verify(*copy);
  EXPECT_EQ(print_graph(*copy), print_graph(g.graph));
  EXPECT_NE(print_graph(g.graph).find("m.py:1:4"), std::string::npos);
}

TEST(Passes, DeadCodeKeepsEffectsAndDropsTheRest) {
  Graph graph;
  Block* b = graph.block();
  Value* x = b->add_input("Tensor");
  b->append(graph.create("aten::relu", {x}));   // unused, pure: removed
  b->append(graph.create("aten::relu_", {x}));  // in-place: kept
  Node* msg = b->append(graph.create_constant(pickle::Value::string("boom")));
  Node* none = b->append(graph.create_constant(pickle::Value::none()));
  b->append(graph.create("prim::RaiseException", {msg->output(), none->output()}, 0));  // kept
  b->add_output(x);
  EXPECT_EQ(eliminate_dead_code(graph), 1u);
  verify(graph);
  EXPECT_EQ(graph.node_count(), 4u);
}

TEST(Passes, DeadCodeRemovesAnIfThatDoesNothing) {
  Graph graph;
  Block* b = graph.block();
  Value* c = b->add_input("bool");
  Value* x = b->add_input("Tensor");
  Node* node = b->append(graph.create("prim::If", {c}, 0));
  Block* then_block = node->add_block();
  node->add_block();
  then_block->append(graph.create("aten::neg", {x}));
  b->add_output(x);
  EXPECT_EQ(eliminate_dead_code(graph), 2u);
  EXPECT_EQ(graph.node_count(), 0u);
}

TEST(Passes, ConstantDeduplicationMergesEqualValuesOnly) {
  Graph graph;
  Block* b = graph.block();
  Value* x = b->add_input("Tensor");
  Value* one_a = b->append(graph.create_constant(pickle::Value::integer(1)))->output();
  Value* one_f = b->append(graph.create_constant(pickle::Value::real(1.0)))->output();
  Node* add = b->append(graph.create("aten::add", {x, one_a, one_f}));
  Value* one_b = b->append(graph.create_constant(pickle::Value::integer(1)))->output();
  Node* mul = b->append(graph.create("aten::mul", {add->output(), one_b}));
  b->add_output(mul->output());
  EXPECT_EQ(deduplicate_constants(graph), 1u);  // 1 and 1.0 stay apart
  verify(graph);
  EXPECT_EQ(mul->input(1), one_a);
  EXPECT_EQ(graph.block()->first()->output(), one_a);
}

TEST(Rewrite, FusedNodeKeepsEveryOrigin) {
  MmAdd g;
  auto mm_range = range_in("t = x @ y\nr = y + t\n", 4, 9);
  auto add_range = range_in("t = x @ y\nr = y + t\n", 14, 19);
  g.mm->set_origin(NodeOrigin{mm_range, nullptr});
  g.add->set_origin(NodeOrigin{add_range, nullptr});
  RewriteRule addmm{"mm+add->addmm",
                    [](Node* root) -> std::optional<std::vector<Node*>> {
                      if (root->qualified_kind() != "aten::add.Tensor") return std::nullopt;
                      Node* mm = root->input(1)->node();
                      if (mm->kind() != "aten::mm") return std::nullopt;
                      return std::vector<Node*>{mm, root};
                    },
                    [](Rewriter& r, const std::vector<Node*>& m) {
                      Node* mm = m[0];
                      Node* add = m[1];
                      Node* fused = r.create(
                          "aten::addmm", {add->input(0), mm->input(0), mm->input(1), add->input(2),
                                          r.constant(pickle::Value::integer(1))});
                      return std::vector<Value*>{fused->output()};
                    }};
  EXPECT_EQ(apply_rewrites(g.graph, {addmm}), 1u);
  verify(g.graph);
  Node* fused = g.graph.block()->return_node()->input(0)->node();
  ASSERT_EQ(fused->kind(), "aten::addmm");
  ASSERT_EQ(fused->origins().size(), 2u);
  EXPECT_EQ(fused->origins()[0].range.text(), "y + t");  // the root's first
  EXPECT_EQ(fused->origins()[1].range.text(), "x @ y");
}

TEST(Rewrite, SkipsAMatchWhoseInnerResultEscapes) {
  MmAdd g;
  g.graph.block()->add_output(g.mm->output());  // %t is also returned
  RewriteRule rule{"any",
                   [](Node* root) -> std::optional<std::vector<Node*>> {
                     if (root->kind() != "aten::add") return std::nullopt;
                     return std::vector<Node*>{root->input(1)->node(), root};
                   },
                   [](Rewriter& r, const std::vector<Node*>& m) {
                     return std::vector<Value*>{r.create("aten::neg", {m[1]->input(0)})->output()};
                   }};
  EXPECT_EQ(apply_rewrites(g.graph, {rule}), 0u);
}

}  // namespace
}  // namespace symbolite::compiler

namespace symbolite::compiler {
namespace {

TEST(Rewrite, ARuleThatMatchesItsOwnReplacementIsStopped) {
  MmAdd g;
  RewriteRule forever{"mm->mm",
                      [](Node* root) -> std::optional<std::vector<Node*>> {
                        if (root->kind() != "aten::mm") return std::nullopt;
                        return std::vector<Node*>{root};
                      },
                      [](Rewriter& r, const std::vector<Node*>& m) {
                        return std::vector<Value*>{r.create("aten::mm", m[0]->inputs())->output()};
                      }};
  EXPECT_THROW(apply_rewrites(g.graph, {forever}), Error);
}

}  // namespace
}  // namespace symbolite::compiler
