// Lifting PyTorch-made models and emitting them again, on every committed fixture with
// bytecode: the IR verifies, the emitter gives back PyTorch's own bytecode, and every
// instruction records the same node (kind, source range, call stack) PyTorch recorded.
#include "symbolite/compiler/lifter.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "symbolite/compiler/emitter.h"
#include "symbolite/compiler/graph_printer.h"
#include "symbolite/compiler/passes/pass_registry.h"
#include "symbolite/compiler/verifier.h"
#include "symbolite/debuginfo/module_hierarchy.h"
#include "symbolite/ops/schema/necessary_args.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::compiler {
namespace {

using testing::fixture_path;

const char* const kModels[] = {
    "nested",         "nested_legacy",  "lstm",      "encoder",       "encoder64",
    "conv1d",         "pooling",        "shape_ops", "tag_minus_one", "tag_minus_one_frame",
    "nested_nodebug", "nested_stripped"};

std::string describe(const debuginfo::SourceRange& range) {
  if (!range.known()) return "<unknown>";
  auto at = range.file_line_col();
  return fmt::format("{}:{}:{} '{}'", at ? at->filename : "?", at ? at->line : 0,
                     at ? at->column : 0, range.text());
}

std::string describe(const debuginfo::InlinedCallStack* call) {
  std::string out;
  for (; call != nullptr; call = call->callee().get()) {
    out += call->module_instance() ? call->module_instance()->instance_name + "(" +
                                         call->module_instance()->type_name + ")"
                                   : std::string("?");
    out += "::" + call->function_name() + "@" + describe(call->callsite()) + " / ";
  }
  return out;
}

class LiftEmit : public ::testing::TestWithParam<const char*> {};

TEST_P(LiftEmit, ReproducesPyTorchsBytecodeAndDebugRows) {
  auto model = mobile::ModelInfo::load(fixture_path(std::string("models/") + GetParam() + ".ptl"));
  Program program = lift(model);
  ASSERT_EQ(program.functions.size(), model.bytecode->functions.size());
  for (std::size_t f = 0; f < program.functions.size(); ++f) {
    const Function& function = program.functions[f];
    const mobile::BytecodeFunction& original = model.bytecode->functions[f];
    SCOPED_TRACE(function.qualified_name);
    verify(*function.graph);
    EmittedFunction emitted = emit_function(function);
    const auto& code = emitted.code;
    ASSERT_EQ(code.instructions.size(), original.instructions.size());
    for (std::size_t i = 0; i < code.instructions.size(); ++i) {
      const auto& a = original.instructions[i];
      const auto& b = code.instructions[i];
      ASSERT_TRUE(a.op == b.op && a.x == b.x && a.n == b.n)
          << "instruction " << i << ": " << mobile::opcode_name(a.op) << " " << a.x << " " << a.n
          << " vs " << mobile::opcode_name(b.op) << " " << b.x << " " << b.n << "\n"
          << print_function(function, program.top_type);
    }
    ASSERT_EQ(code.operators.size(), original.operators.size());
    for (std::size_t i = 0; i < code.operators.size(); ++i) {
      EXPECT_EQ(code.operators[i].full_name(), original.operators[i].full_name());
      EXPECT_EQ(code.operators[i].num_specified_args, original.operators[i].num_specified_args)
          << original.operators[i].full_name();
    }
    ASSERT_EQ(code.constants.size(), original.constants.size());
    for (std::size_t i = 0; i < code.constants.size(); ++i) {
      EXPECT_TRUE(ops::ivalue_equal(code.constants[i], original.constants[i]) ||
                  code.constants[i].debug_string() == original.constants[i].debug_string())
          << "constant " << i << ": " << code.constants[i].debug_string() << " vs "
          << original.constants[i].debug_string();
    }
    EXPECT_EQ(code.types, original.types);
    EXPECT_EQ(code.register_size, original.register_size);

    // Every instruction records the node PyTorch recorded for it.
    if (!model.debug.has_callstack_map || !model.debug.has_handle_table) continue;
    const std::vector<debuginfo::DebugHandle>* handles = nullptr;
    for (const auto& fh : model.debug.handles.functions()) {
      if (fh.function == function.qualified_name) handles = &fh.handles;
    }
    ASSERT_NE(handles, nullptr);
    for (std::size_t i = 0; i < handles->size(); ++i) {
      const debuginfo::DebugInfo* expected = model.debug.table.find((*handles)[i]);
      ASSERT_NE(expected, nullptr);
      const debuginfo::DebugInfo& got = emitted.instruction_debug[i];
      SCOPED_TRACE(
          fmt::format("instruction {} ({})", i, mobile::opcode_name(original.instructions[i].op)));
      EXPECT_EQ(got.node_kind, expected->node_kind);
      if (got.node_kind == "prim::Drop") continue;  // PyTorch gives them an empty range
      EXPECT_EQ(describe(got.range), describe(expected->range));
      EXPECT_EQ(describe(got.call_stack.get()), describe(expected->call_stack.get()));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LiftEmit, ::testing::ValuesIn(kModels));

TEST(Lift, NodesKnowTheirModuleHierarchyAsPyTorchPrintsIt) {
  // Every failing case of the goldens: the node lifted from the failing instruction renders
  // the module hierarchy PyTorch printed (with the real method name where PyTorch has <unknown>).
  for (const char* stem : {"nested", "lstm", "encoder", "conv1d", "pooling", "shape_ops"}) {
    auto model = mobile::ModelInfo::load(fixture_path(std::string("models/") + stem + ".ptl"));
    Program program = lift(model);
    auto golden = testing::load_golden(stem);
    for (const auto& c : golden["cases"]) {
      if (!c.contains("instruction") || c["instruction"].is_null()) continue;
      const Function* function = program.find(c["function"].get<std::string>());
      ASSERT_NE(function, nullptr);
      EmittedFunction emitted = emit_function(*function);
      const auto& info = emitted.instruction_debug.at(c["instruction"].get<std::size_t>());
      EXPECT_EQ(debuginfo::module_hierarchy(program.top_type, function->short_name(),
                                            info.call_stack.get(), info.node_kind),
                c["symbolite_module_hierarchy"].get<std::string>())
          << stem << " " << c["name"];
    }
  }
}

TEST(Lift, PrintsSourceAndHierarchyPerNode) {
  auto model = mobile::ModelInfo::load(fixture_path("models/nested.ptl"));
  Program program = lift(model);
  std::string text =
      print_function(*program.find("__torch__.model_defs.Nested.forward"), program.top_type);
  // `return h + y` in Level2.forward, inlined through level1 and level2.
  EXPECT_NE(text.find("aten::add("), std::string::npos) << text;
  EXPECT_NE(
      text.find("tests/fixtures/model_defs.py:47:15  "
                "top(Nested)::forward.level1(Level1)::forward.level2(Level2)::forward.aten::add"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("prim::If("), std::string::npos);
}

TEST(Lift, RefusesAJumpThatClosesNothing) {
  auto model = mobile::ModelInfo::load(fixture_path("models/nested.ptl"));
  auto& fn = model.bytecode->functions.front();
  fn.instructions.insert(fn.instructions.begin() + 1,
                         mobile::Instruction{mobile::OpCode::kJmp, 1, 0});
  try {
    lift(model);
    FAIL() << "lifted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("instruction 1 (JMP)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace symbolite::compiler

namespace symbolite::compiler {
namespace {

// Every damaged or malicious file of tests/hostile/ that opens at all is lifted or refused
// with an Error; whatever lifts verifies and emits.
TEST(Lift, HostileFilesAreRefusedCleanly) {
  std::size_t lifted = 0, refused = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(testing::source_path("tests/hostile"))) {
    if (entry.path().extension() != ".ptl") continue;
    std::optional<mobile::ModelInfo> model;
    try {
      model.emplace(mobile::ModelInfo::load(entry.path().string()));
    } catch (const Error&) {
      continue;  // the readers' business (tests/hostile/README)
    }
    try {
      Program program = lift(*model);
      for (const auto& function : program.functions) {
        verify(*function.graph);
        emit_function(function);
      }
      ++lifted;
    } catch (const Error& e) {
      EXPECT_NE(e.kind(), ErrorKind::kInternal) << entry.path() << ": " << e.what();
      ++refused;
    }
  }
  EXPECT_GT(lifted + refused, 0u);
}

}  // namespace
}  // namespace symbolite::compiler

namespace symbolite::compiler {
namespace {

// On PyTorch's own files: attribute reads whose result is dropped unused (GET_ATTR then DROP
// in the bytecode) go, and so do duplicate constants (each inlined callee brings its own);
// the graphs still verify and every remaining operator keeps its module hierarchy.
class PassesOnFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(PassesOnFixture, RemoveDeadCodeAndDuplicatesKeepingDebugInfo) {
  auto model =
      mobile::ModelInfo::load(testing::fixture_path(std::string("models/") + GetParam() + ".ptl"));
  Program program = lift(model);
  std::map<std::string, std::multiset<std::string>> before;
  for (const auto& f : program.functions) {
    for_each_node(f.graph->block(), [&](Node* n) {
      if (n->kind().rfind("aten::", 0) == 0)
        before[f.qualified_name].insert(n->module_hierarchy(program.top_type, f.short_name()));
    });
  }
  auto results = run_passes(program, {"dce", "dedup-constants"}, true);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_GT(results[0].changes + results[1].changes, 0u);
  for (const auto& f : program.functions) {
    std::multiset<std::string> after;
    for_each_node(f.graph->block(), [&](Node* n) {
      if (n->kind().rfind("aten::", 0) == 0)
        after.insert(n->module_hierarchy(program.top_type, f.short_name()));
    });
    EXPECT_EQ(after, before[f.qualified_name]) << f.qualified_name;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PassesOnFixture,
                         ::testing::Values("nested", "lstm", "encoder", "pooling"));

}  // namespace
}  // namespace symbolite::compiler
