// Debug records are decoded on the first failure, not at load (mobile/lazy_debug_source.h):
// a model whose call-stack map is damaged (tests/hostile/damaged_call_stacks.ptl, nested.ptl
// with that record cut in half) loads and runs, and its failure is still reported whole — the
// model's message, the handle, and why it is not symbolicated — while the intact model's
// failure carries PyTorch's module hierarchy (tests/fixtures/run/manifest.json). The handle
// table too (mobile/lazy_handle_table.h): nested.ptl with mobile_debug_handles.pkl cut in half
// (tests/hostile/damaged_handle_table.ptl) loads and runs, its failure says why it has no
// handle, and a profile, which needs the handles, is refused before the model runs.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::runtime {
namespace {

using symbolite::testing::fixture_path;

std::vector<ops::IValue> inputs(const std::string& case_dir) {
  const std::string dir = fixture_path("run/" + case_dir + "/");
  return {read_input_file(dir + "input_0.npy"), read_input_file(dir + "input_1.npy")};
}

RunErrorDetails failure_of(const mobile::LoadedModel& model) {
  Interpreter interpreter(model);
  try {
    interpreter.run_method("forward", inputs("nested/broadcast_three_deep"));
  } catch (const RunError& e) {
    return e.details();
  }
  ADD_FAILURE() << "no failure";
  return {};
}

// The model's own message for the broadcast failure, whatever its debug info.
constexpr const char* kBroadcastFailure =
    "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0";

// nested.ptl with one debug record damaged (tests/hostile/make_hostile.py, damaged_record).
mobile::LoadedModel damaged(const std::string& name) {
  return mobile::LoadedModel::load(symbolite::testing::source_path("tests/hostile/" + name));
}

TEST(LazyDebug, ADamagedCallStackMapLoadsRunsAndStillReportsTheFailure) {
  auto model = damaged("damaged_call_stacks.ptl");
  ASSERT_NE(model.debug, nullptr);
  EXPECT_EQ(model.top_type, "__torch__.model_defs.Nested");
  Interpreter(model).run_method("forward", inputs("nested/valid_0"));  // runs

  RunErrorDetails d = failure_of(model);
  EXPECT_EQ(d.message, kBroadcastFailure);
  ASSERT_TRUE(d.handle.has_value());
  EXPECT_TRUE(d.module_hierarchy.empty());
  EXPECT_NE(d.debug_info_error.find("callstack_debug_map.pkl"), std::string::npos)
      << d.debug_info_error;
  const std::string text = RunError(d).text();
  EXPECT_NE(text.find("(debug handle " + std::to_string(*d.handle) + ")"), std::string::npos)
      << text;
  EXPECT_NE(text.find("debug info could not be read"), std::string::npos) << text;

  // The intact model: the same handle, symbolicated on this first failure.
  auto intact = mobile::LoadedModel::load(fixture_path("models/nested.ptl"));
  RunErrorDetails full = failure_of(intact);
  EXPECT_EQ(full.handle, d.handle);
  EXPECT_EQ(full.module_hierarchy,
            "top(Nested)::forward.level1(Level1)::forward.level2(Level2)::forward.aten::add");
  EXPECT_TRUE(full.debug_info_error.empty());
}

TEST(LazyDebug, ADamagedHandleTableLoadsRunsReportsTheFailureAndRefusesAProfile) {
  auto model = damaged("damaged_handle_table.ptl");
  Interpreter(model).run_method("forward", inputs("nested/valid_0"));  // runs

  RunErrorDetails d = failure_of(model);
  EXPECT_EQ(d.message, kBroadcastFailure);
  EXPECT_FALSE(d.handle.has_value());
  EXPECT_EQ(d.instruction,
            failure_of(mobile::LoadedModel::load(fixture_path("models/nested.ptl"))).instruction);
  EXPECT_NE(d.debug_info_error.find("mobile_debug_handles.pkl"), std::string::npos)
      << d.debug_info_error;
  EXPECT_NE(RunError(d).text().find("debug info could not be read"), std::string::npos);

  profiler::RecordingSink sink;
  profiler::ProfilingScope scope(sink);
  try {
    Interpreter(model).run_method("forward", inputs("nested/valid_0"));
    ADD_FAILURE() << "profiled without its handles";
  } catch (const RunError& e) {
    ADD_FAILURE() << "reported as the model's failure: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mobile_debug_handles.pkl"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(sink.events().empty());
}

}  // namespace
}  // namespace symbolite::runtime
