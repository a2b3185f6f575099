// The to_backend fixtures (tests/fixtures/make_delegated_models.py: Outer → delegate, lowered
// to the "symbolite" backend of libsymbolite_torch.so → inner, combine): symbolite reads them
// and symbolicates both handles of a delegate failure against the texts PyTorch printed.
#include <numeric>
#include <string>

#include <gtest/gtest.h>

#include "symbolite/mobile/model_info.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/text.h"

namespace symbolite::mobile {
namespace {

using symbolite::testing::fixture_path;
using symbolite::testing::load_golden;
using symbolite::testing::rstrip;

const ModuleNode& child(const ModuleNode& node, const std::string& name) {
  for (const auto& c : node.children) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no child " + name + " of " + node.type);
}

class DelegatedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(DelegatedModel, InspectMatchesGolden) {
  auto golden = load_golden(GetParam());
  auto model = ModelInfo::load(fixture_path("models/" + golden["model"].get<std::string>()));
  EXPECT_EQ(model.modules.type, golden["top_type"]);
  const ModuleNode& wrapper = child(model.modules, "delegate");
  EXPECT_EQ(wrapper.type, golden["wrapper_type"]);
  EXPECT_FALSE(wrapper.lowered);
  const ModuleNode& lowered = child(wrapper, "__loweredModule__");
  EXPECT_EQ(lowered.type, golden["lowered_type"]);
  ASSERT_TRUE(lowered.lowered);
  EXPECT_EQ(lowered.lowered->backend, golden["backend"]);
  EXPECT_EQ(lowered.lowered->processed_kind, "dict");
  std::vector<std::string> methods;
  std::uint64_t bytes = 0;
  for (const auto& [method, size] : golden["processed_bytes"].items()) {
    methods.push_back(method);
    bytes += size.get<std::uint64_t>();
  }
  EXPECT_EQ(lowered.lowered->compile_spec_methods, methods);
  EXPECT_EQ(lowered.lowered->processed_bytes, bytes);

  ASSERT_TRUE(model.bytecode);
  ASSERT_EQ(model.bytecode->functions.size(), golden["methods"].size());
  for (std::size_t i = 0; i < golden["methods"].size(); ++i) {
    const auto& expected = golden["methods"][i];
    const auto& fn = model.bytecode->functions[i];
    EXPECT_EQ(fn.qualified_name, expected["name"]);
    EXPECT_EQ(fn.instructions.size(), expected["instructions"].get<std::size_t>());
    EXPECT_EQ(fn.operators.size(), expected["operators"].get<std::size_t>());
  }
  EXPECT_EQ(model.debug.has_callstack_map, !golden["callstack_rows"].is_null());
  if (model.debug.has_callstack_map) {
    EXPECT_EQ(model.debug.table.size(), golden["callstack_rows"].get<std::size_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DelegatedModel,
                         ::testing::Values("delegated", "delegated_nodebug"));

// PyTorch composes a delegate failure's text from two handles: the instruction handle of the
// execute call gives the outer part (its hierarchy up to the lowered module's forward, its
// traceback frames down to `execute`), the backend handle the inner part (recorded relative to
// the lowered module). symbolite resolves each handle to exactly those parts.
TEST(DelegatedModel, BothHandlesResolveToPyTorchsComposedText) {
  auto golden = load_golden("delegated");
  auto model = ModelInfo::load(fixture_path("models/delegated.ptl"));
  auto symbolicator = model.symbolicator();
  ASSERT_FALSE(golden["cases"].empty());
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::string hierarchy = c["module_hierarchy"];
    const std::string traceback = rstrip(c["traceback"]);

    auto outer = symbolicator.symbolicate(c["instruction_handle"].get<std::int64_t>());
    EXPECT_EQ(outer.status, debuginfo::SymbolicationStatus::kOk);
    // symbolite names the top method where PyTorch prints <unknown>; and ends with the op of
    // the instruction (prim::CallMethod), where PyTorch continues into the backend.
    std::string outer_hierarchy = outer.module_hierarchy;
    const std::string named = "top(Outer)::forward.";
    ASSERT_EQ(outer_hierarchy.rfind(named, 0), 0u) << outer_hierarchy;
    outer_hierarchy.replace(0, named.size(), "top(Outer)::<unknown>.");
    const std::string call_op = "prim::CallMethod";
    ASSERT_TRUE(outer_hierarchy.ends_with(call_op)) << outer_hierarchy;
    outer_hierarchy.resize(outer_hierarchy.size() - call_op.size());
    EXPECT_EQ(hierarchy.rfind(outer_hierarchy, 0), 0u) << hierarchy << "\n" << outer_hierarchy;

    std::string outer_traceback = rstrip(outer.traceback);
    const std::string in_forward = ", in forward\n";
    auto first = outer_traceback.find(in_forward);
    ASSERT_NE(first, std::string::npos);
    outer_traceback.replace(first, in_forward.size(), ", in <unknown>\n");
    EXPECT_EQ(traceback.rfind(outer_traceback, 0), 0u) << traceback << "\n---\n" << outer_traceback;

    auto inner = symbolicator.symbolicate(c["backend_handle"].get<std::int64_t>());
    const std::string top = "top(Outer)::<unknown>.";
    ASSERT_EQ(inner.module_hierarchy.rfind(top, 0), 0u) << inner.module_hierarchy;
    EXPECT_EQ(outer_hierarchy + inner.module_hierarchy.substr(top.size()), hierarchy);
    // The backend handle's frames, without the "Traceback of TorchScript" header line,
    // follow the outer frames.
    std::string inner_frames = rstrip(inner.traceback);
    inner_frames.erase(0, inner_frames.find('\n') + 1);
    EXPECT_EQ(traceback, outer_traceback + "\n" + inner_frames);
  }
}

// Symbolicator::symbolicate_delegated gives PyTorch's composed text, with symbolite's one
// documented improvement (the function's name where PyTorch prints <unknown>: the top
// method's, and the lowered method's for the delegate's frames).
TEST(DelegatedModel, ComposedSymbolicationEqualsPyTorchsText) {
  auto golden = load_golden("delegated");
  auto model = ModelInfo::load(fixture_path("models/delegated.ptl"));
  auto symbolicator = model.symbolicator();
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    auto s = symbolicator.symbolicate_delegated(c["instruction_handle"].get<std::int64_t>(),
                                                c["backend_handle"].get<std::int64_t>());
    EXPECT_EQ(s.status, debuginfo::SymbolicationStatus::kOk);
    EXPECT_EQ(s.handle, c["backend_handle"].get<std::int64_t>());
    std::string hierarchy = c["module_hierarchy"];
    hierarchy.replace(hierarchy.find("::<unknown>"), 11, "::forward");
    EXPECT_EQ(s.module_hierarchy, hierarchy);
    EXPECT_TRUE(hierarchy.ends_with("." + s.op)) << s.op;
    std::string traceback = c["traceback"];
    // Both <unknown>s: the top method's and the lowered method's (of the delegate's frames).
    for (auto at = traceback.find(", in <unknown>\n"); at != std::string::npos;
         at = traceback.find(", in <unknown>\n")) {
      traceback.replace(at, 15, ", in forward\n");
    }
    EXPECT_EQ(rstrip(s.traceback), rstrip(traceback));
  }
  auto missing = symbolicator.symbolicate_delegated(36, 999);
  EXPECT_EQ(missing.status, debuginfo::SymbolicationStatus::kNotFound);
  // Handle 99 is an instruction's (of the LoweredModule's __setstate__): said so.
  auto instruction_as_backend = symbolicator.symbolicate_delegated(36, 99);
  ASSERT_FALSE(instruction_as_backend.notes.empty());
  EXPECT_NE(instruction_as_backend.notes.back().find("not a backend node's"), std::string::npos);
}

}  // namespace
}  // namespace symbolite::mobile
