// Every run fixture again, on the model as `symbolite lower` writes it for eager, xnnpack,
// eager_debug and aot_eager (every operator the backend takes moved into delegate programs):
// symbolite's runtime gives PyTorch's outputs, and a failing call PyTorch's class and message,
// with the module hierarchy PyTorch printed plus the lowered module's segment when the failing
// node runs inside the delegate, and a traceback through the lowered module down to PyTorch's
// innermost frame.
#include <map>

#include <gtest/gtest.h>

#include "symbolite/backends/eager/eager_support.h"
#include "symbolite/backends/register_backends.h"
#include "symbolite/backends/xnnpack/xnnpack_support.h"
#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/lowering/lowering.h"
#include "symbolite/mobile/delegate_program.h"
#include "symbolite/mobile/model_writer.h"
#include "symbolite/profiler/attribution.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/delegate/program_backend.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_manifest.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::compiler {
namespace {

std::unique_ptr<BackendSupport> support(const std::string& backend) {
  if (backend == "xnnpack") return std::make_unique<backends::XnnpackSupport>();
  return std::make_unique<backends::EagerSupport>(backend);
}

const mobile::LoadedModel& lowered(const std::string& name, const std::string& backend) {
  static std::map<std::string, mobile::LoadedModel> models;
  backends::register_delegate_backends();
  auto it = models.find(backend + "/" + name);
  if (it == models.end()) {
    testing::ScratchDir dir;
    std::string out = dir.file("lowered.ptl");
    LoweringOptions options;
    options.backend = backend;
    auto report =
        lower_model(testing::fixture_path("models/" + name), out, *support(backend), options);
    if (backend == "eager") {
      EXPECT_FALSE(report.partitions.empty()) << name;
    }
    it = models.emplace(backend + "/" + name, mobile::LoadedModel::load(out)).first;
  }
  return it->second;
}

class LoweredRun : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(LoweredRun, MatchesPyTorchOnTheOriginal) {
  const auto& [backend, index] = GetParam();
  const auto& entry = testing::run_manifest()[static_cast<std::size_t>(index)];
  testing::check_run_entry(entry, lowered(entry["model"].get<std::string>(), backend), true);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, LoweredRun,
    ::testing::Combine(::testing::Values("eager", "xnnpack", "eager_debug", "aot_eager"),
                       ::testing::Range(0, static_cast<int>(testing::run_manifest().size()))),
    [](const auto& info) {
      return std::get<0>(info.param) + "_" + testing::run_case_name(std::get<1>(info.param));
    });

// Profiling a lowered run sees inside the delegate: each delegate node reports its own event
// (source kDelegateEventSource) with its delegate handle and the handle of the call that ran
// the delegate, which attribute it to the module it came from, under the lowered module — all
// of the delegate's time.
TEST(LoweredRun, ProfilesAttributeDelegateTimeToModules) {
  const auto& model = lowered("conv1d.ptl", "eager");
  const auto& entry = testing::run_manifest()[0];
  ASSERT_EQ(entry["model"], "conv1d.ptl");
  std::string dir = testing::fixture_path("run/" + entry["dir"].get<std::string>());
  std::vector<ops::IValue> inputs;
  for (const auto& name : entry["inputs"])
    inputs.push_back(runtime::read_input_file(dir + "/" + name.get<std::string>()));
  runtime::Interpreter interpreter(model);
  profiler::RecordingSink sink;
  {
    profiler::ProfilingScope scope(sink);
    interpreter.run_method("forward", inputs);
  }
  debuginfo::Symbolicator symbolicator(model.debug);
  profiler::Attributor attributor(&symbolicator, model.top_type);
  std::int64_t delegate_ns = 0, attributed_ns = 0;
  std::size_t delegate_events = 0;
  for (const auto& e : sink.events()) {
    if (e.source != runtime::kDelegateEventSource) continue;
    ++delegate_events;
    delegate_ns += e.end_ns - e.start_ns;
    // Each node nests under the lowered module that ran it: top(...), __lowered_<i>(...), ...
    const auto& a = attributor.attribute(e.handle, e.delegate_call);
    if (a.known && a.module_path.size() >= 2 && a.module_path[1].starts_with("__lowered_")) {
      attributed_ns += e.end_ns - e.start_ns;
    }
  }
  EXPECT_EQ(delegate_events, 8u);  // every operator of conv1d.ptl's forward
  EXPECT_GE(static_cast<double>(attributed_ns), 0.99 * static_cast<double>(delegate_ns));
}

// The file has to.backend's structure: one lowered module per partition, each a getstate
// tuple (compile spec, {method: (program, weights)}, True) whose program parses, and the
// class's __setstate__/__getstate__ among the functions.
TEST(Lowering, WritesToBackendStructure) {
  testing::ScratchDir dir;
  std::string out = dir.file("lowered.ptl");
  LoweringOptions options;
  options.backend = "eager";
  auto report = lower_model(testing::fixture_path("models/conv1d.ptl"), out,
                            backends::EagerSupport(), options);
  ASSERT_EQ(report.partitions.size(), 1u);
  auto info = mobile::ModelInfo::load(out);
  Program program = lift(info);
  const auto& root = program.root_object.as_object();
  const pickle::Value* lowered = nullptr;
  for (const auto& [key, value] : root.state.as_dict()) {
    if (key.as_string() == "__lowered_0") lowered = &value;
  }
  ASSERT_NE(lowered, nullptr);
  const auto& object = lowered->as_object();
  EXPECT_EQ(object.type_name, "torch.jit.LoweredModule.eager.__torch__.model_defs.Conv1dStack");
  const auto& state = object.state.as_tuple();
  ASSERT_EQ(state.size(), 3u);
  EXPECT_TRUE(state[2].as_bool());
  const auto& payload = state[1].as_dict().at(0).second.as_tuple();
  auto delegate = mobile::parse_delegate_program(payload[0].as_string());
  EXPECT_EQ(delegate.steps.size(), report.partitions[0].operators.size());
  EXPECT_EQ(payload[1].as_list().size(), report.partitions[0].weights);
  for (std::size_t i = 0; i < delegate.steps.size(); ++i) {
    EXPECT_EQ(delegate.steps[i].handle, report.partitions[0].handles[i]);
  }
  std::vector<std::string> names;
  for (const auto& fn : info.bytecode->functions) names.push_back(fn.qualified_name);
  EXPECT_NE(std::find(names.begin(), names.end(), object.type_name + ".__setstate__"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), object.type_name + ".__getstate__"), names.end());
}

TEST(Lowering, ModuleOptionLowersOnlyThatModule) {
  testing::ScratchDir dir;
  LoweringOptions options;
  options.backend = "eager";
  options.modules = {"no_such_module"};
  EXPECT_THROW(lower_model(testing::fixture_path("models/nested.ptl"), dir.file("x.ptl"),
                           backends::EagerSupport(), options),
               Error);
}

}  // namespace
}  // namespace symbolite::compiler
