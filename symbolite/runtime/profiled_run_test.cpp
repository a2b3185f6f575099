// Profiling real runs: for every valid call of nested.ptl, the events symbolite's runtime
// reports against the events PyTorch 1.13's lite interpreter recorded for the same call and
// inputs (tests/fixtures/profile/expected.json, written by make_profile_fixtures.py): same
// count and order, same operators, same input shapes, same FLOPs where PyTorch counts them;
// and each event's module path against PyTorch's call-stack map for its handle
// (goldens/nested.json).
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/profiler/attribution.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/tensor/buffer_pool.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::runtime {
namespace {

using symbolite::testing::fixture_path;
using symbolite::testing::load_golden;

struct Case {
  std::string method;
  std::string dir;
  nlohmann::json events;  // PyTorch's
};

std::vector<Case> cases() {
  std::ifstream in(fixture_path("profile/expected.json"));
  std::vector<Case> out;
  for (const auto& c : nlohmann::json::parse(in))
    out.push_back({c["method"], c["dir"], c["events"]});
  return out;
}

const mobile::LoadedModel& nested() {
  static const mobile::LoadedModel model =
      mobile::LoadedModel::load(fixture_path("models/nested.ptl"));
  return model;
}

std::vector<ops::IValue> inputs_of(const std::string& dir) {
  std::ifstream in(fixture_path("run/manifest.json"));
  for (const auto& call : nlohmann::json::parse(in)) {
    if (call["dir"] != dir) continue;
    std::vector<ops::IValue> inputs;
    for (const auto& name : call["inputs"]) {
      inputs.push_back(read_input_file(fixture_path("run/" + dir + "/" + name.get<std::string>())));
    }
    return inputs;
  }
  ADD_FAILURE() << "no run fixture " << dir;
  return {};
}

// Runs the call once unprofiled, then once under a sink recording `details`.
std::vector<profiler::OpEvent> profile(const Case& c, std::uint32_t details) {
  Interpreter interpreter(nested());
  interpreter.run_method(c.method, inputs_of(c.dir));
  profiler::RecordingSink sink(details);
  {
    profiler::ProfilingScope scope(sink);
    interpreter.run_method(c.method, inputs_of(c.dir));
  }
  return sink.events();
}

// The operator an instruction with `handle` calls (handles are unique per instruction).
const mobile::ResolvedOperator* operator_of(debuginfo::DebugHandle handle) {
  for (const auto& [name, fn] : nested().functions) {
    for (std::size_t pc = 0; pc < fn.instructions().size(); ++pc) {
      if (fn.debug_handle(pc) != handle) continue;
      const auto& ins = fn.instructions()[pc];
      if (ins.op != mobile::OpCode::kOp && ins.op != mobile::OpCode::kOpN) return nullptr;
      return &fn.operators[static_cast<std::size_t>(ins.x)];
    }
  }
  return nullptr;
}

std::string base_name(std::string_view op) { return std::string(op.substr(0, op.find('.'))); }

TEST(ProfiledRun, EventsMatchPyTorchsLiteInterpreter) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.dir + " (" + c.method + ")");
    auto events = profile(c, profiler::kDetailAll);
    ASSERT_EQ(events.size(), c.events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
      const auto& got = events[i];
      const auto& want = c.events[i];
      SCOPED_TRACE("event " + std::to_string(i) + " " + std::string(got.op));
      EXPECT_EQ(base_name(got.op), want["op"].get<std::string>());
      // PyTorch records the whole operand stack with the bytecode's own arguments on top; ours
      // are the operator's arguments, defaults filled in after the ones the bytecode pushed.
      const auto* op = operator_of(got.handle);
      ASSERT_NE(op, nullptr);
      EXPECT_EQ(op->name, got.op);
      auto torch_shapes = want["input_shapes"].get<std::vector<std::vector<std::int64_t>>>();
      ASSERT_GE(torch_shapes.size(), op->num_specified_args);
      ASSERT_GE(got.inputs.size(), op->num_specified_args);
      std::size_t first = torch_shapes.size() - op->num_specified_args;
      for (std::size_t k = 0; k < op->num_specified_args; ++k) {
        EXPECT_EQ(got.inputs[k].sizes, torch_shapes[first + k]) << "input " << k;
      }
      if (want["flops"].get<std::int64_t>() > 0) {
        EXPECT_EQ(got.flops, want["flops"].get<std::int64_t>());
      }
      EXPECT_LE(got.start_ns, got.end_ns);
      if (i > 0) {
        EXPECT_LE(events[i - 1].end_ns, got.start_ns);
      }
    }
  }
}

// Each event's module path is the chain of module instances PyTorch's call-stack map holds
// for its handle (methods called on self and free functions stay in their module).
TEST(ProfiledRun, EventsAreAttributedToThePyTorchModulePath) {
  auto golden = load_golden("nested")["handles"];
  debuginfo::Symbolicator symbolicator(nested().debug);
  profiler::Attributor attributor(&symbolicator, nested().top_type);
  std::size_t checked = 0;
  for (const auto& c : cases()) {
    for (const auto& e : profile(c, 0)) {
      const auto& want = golden[std::to_string(e.handle)];
      std::vector<std::string> path = {"top(Nested)"};
      for (const auto& frame : want["frames"]) {
        if (frame["instance"].is_null()) continue;  // a free function
        std::string instance = frame["instance"];
        if (instance == "SELF" || instance == "UNKNOWN_INSTANCE") continue;
        std::string type = frame["type"];
        path.push_back(instance + "(" + type.substr(type.rfind('.') + 1) + ")");
      }
      const auto& a = attributor.attribute(e.handle);
      EXPECT_EQ(a.module_path, path) << "handle " << e.handle;
      EXPECT_EQ(a.op, want["op"].get<std::string>()) << "handle " << e.handle;
      ++checked;
    }
  }
  EXPECT_GT(checked, 30u);
}

// Without details an event carries time only; memory figures add up to what the run kept.
TEST(ProfiledRun, DetailsAreRecordedOnlyWhenAsked) {
  const Case c = cases().front();  // forward: linear, tanh, add, relu, mm, ...
  for (const auto& e : profile(c, 0)) {
    EXPECT_TRUE(e.inputs.empty());
    EXPECT_EQ(e.flops, -1);
    EXPECT_EQ(e.bytes_allocated, 0);
  }
  for (const auto& e : profile(c, profiler::kDetailFlops)) {
    EXPECT_TRUE(e.inputs.empty()) << "FLOPs alone keep no shapes";
    if (base_name(e.op) == "aten::linear") {
      EXPECT_GT(e.flops, 0);
    }
  }
  for (const auto& e : profile(c, profiler::kDetailMemory | profiler::kDetailShapes)) {
    // A kernel that makes a new float32 result takes exactly its bytes; tanh computes over
    // its input, the linear's result, which nothing else refers to: none.
    if (base_name(e.op) == "aten::linear" || base_name(e.op) == "aten::tanh") {
      ASSERT_EQ(e.outputs.size(), 1u);
      std::int64_t bytes = 4;
      for (auto s : e.outputs[0].sizes) bytes *= s;
      EXPECT_EQ(e.bytes_allocated, base_name(e.op) == "aten::tanh" ? 0 : bytes) << e.op;
    }
  }
}

TEST(ProfiledRun, MemoryIsTheTensorBytesTakenAndReleased) {
  const Case c = cases().front();
  Interpreter interpreter(nested());
  auto inputs = inputs_of(c.dir);
  interpreter.run_method(c.method, inputs);
  profiler::RecordingSink sink(profiler::kDetailMemory | profiler::kDetailShapes);
  auto before = tensor::thread_allocation_counts();
  {
    profiler::ProfilingScope scope(sink);
    interpreter.run_method(c.method, inputs);
  }
  auto after = tensor::thread_allocation_counts();
  std::int64_t allocated = 0;
  for (const auto& e : sink.events()) {
    allocated += e.bytes_allocated;
    std::int64_t outputs = 0;
    for (const auto& out : e.outputs) {
      if (!out.is_tensor) continue;
      std::int64_t n = 4;  // nested's tensors are float32
      for (auto s : out.sizes) n *= s;
      outputs += n;
    }
    EXPECT_LE(e.bytes_allocated, std::max<std::int64_t>(outputs, 64) * 4) << e.op;
  }
  // Every tensor byte the run took was taken inside an operator.
  EXPECT_EQ(allocated, after.allocated - before.allocated);
  EXPECT_GT(allocated, 0);
}

}  // namespace
}  // namespace symbolite::runtime
