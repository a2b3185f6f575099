// Node isolation, for minify: every candidate of every method of nested.ptl either isolates —
// the probe returns the node's dynamic inputs, the isolated model runs the node on them and
// gives what the whole model computed at that node — or sits inside a loop or branch and is
// refused with the reason. (End to end, with the error-injecting backends: MinifyCommand in
// cli/lower_command_test.cpp, and tests/interop/run_minify_zoo.py by hand.)
#include "symbolite/compiler/lowering/node_isolation.h"

#include <gtest/gtest.h>

#include "symbolite/backends/eager/eager_support.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::compiler {
namespace {

mobile::LoadedModel load(std::vector<std::uint8_t> bytes) {
  return mobile::LoadedModel::load_bytes(Bytes::from_vector(std::move(bytes)), "cut");
}

// nested.ptl's forward, lowered to eager, on its first valid call's inputs.
struct NestedForward {
  std::string model = testing::fixture_path("models/nested.ptl");
  std::vector<ops::IValue> inputs = {
      runtime::read_input_file(testing::fixture_path("run/nested/valid_0/input_0.npy")),
      runtime::read_input_file(testing::fixture_path("run/nested/valid_0/input_1.npy"))};
  backends::EagerSupport support;
  LoweringOptions options = eager();
  std::size_t candidates = lower_model_bytes(model, support, options).report.candidates.size();

  static LoweringOptions eager() {
    LoweringOptions o;
    o.backend = "eager";
    return o;
  }
  // The values the cut's node received, captured by running its probe.
  std::vector<ops::IValue> captured(const IsolatedNode& cut) const {
    auto probe = load(cut.probe);
    ops::IValue v = runtime::Interpreter(probe).run_method("forward", inputs);
    return cut.input_types.size() == 1 ? std::vector<ops::IValue>{v} : v.to_tuple();
  }
};

TEST(NodeIsolation, EachNodeOfTheMethodRunsAloneOnWhatItReceived) {
  NestedForward f;
  ASSERT_GT(f.candidates, 3u);
  std::size_t isolated = 0;
  for (std::size_t c = 0; c < f.candidates; ++c) {
    SCOPED_TRACE(c);
    IsolatedNode cut;
    try {
      cut = isolate_candidate(f.model, f.support, f.options, c);
    } catch (const Error& e) {
      // forward's nodes are all in its own block except the batch branch's (x.mean(0)).
      EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
      EXPECT_NE(e.message().find("inside a prim::If"), std::string::npos) << e.message();
      continue;
    }
    ++isolated;
    EXPECT_LT(cut.nodes_after, cut.nodes_before);
    std::vector<ops::IValue> node_inputs = f.captured(cut);
    ASSERT_EQ(node_inputs.size(), cut.input_types.size());
    auto alone = load(cut.isolated);
    ASSERT_NE(alone.method("forward"), nullptr);
    ops::IValue result = runtime::Interpreter(alone).run_method("forward", node_inputs);
    EXPECT_FALSE(result.is_none());
  }
  EXPECT_GE(isolated, 3u);
  EXPECT_THROW(isolate_candidate(f.model, f.support, f.options, f.candidates), Error);
}

// The last candidate of forward feeds the method's result: isolated, on the values the probe
// captured, it computes exactly what the whole model returns.
TEST(NodeIsolation, TheLastNodeAloneGivesTheModelsResult) {
  NestedForward f;
  auto cut = isolate_candidate(f.model, f.support, f.options, f.candidates - 1);
  auto alone = load(cut.isolated);
  auto got =
      runtime::Interpreter(alone).run_method("forward", f.captured(cut)).to_tensor().contiguous();
  auto whole = mobile::LoadedModel::load(f.model);
  auto want = runtime::Interpreter(whole).run_method("forward", f.inputs).to_tensor().contiguous();
  ASSERT_EQ(got.sizes(), want.sizes());
  for (std::int64_t i = 0; i < want.numel(); ++i)
    EXPECT_EQ(got.data<float>()[i], want.data<float>()[i]);
}

}  // namespace
}  // namespace symbolite::compiler
