// The profiler's plumbing and exporters on events with known handles of a real model
// (tests/fixtures/models/nested.ptl); end-to-end profiling of real runs is in
// runtime/profiled_run_test.cpp.
#include <gtest/gtest.h>

#include "symbolite/mobile/model_info.h"
#include "symbolite/profiler/chrome_trace.h"
#include "symbolite/profiler/module_table.h"
#include "symbolite/profiler/op_table.h"
#include "symbolite/profiler/recording_sink.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::profiler {
namespace {

using symbolite::testing::fixture_path;

// Handles of nested.ptl (see goldens/nested.json): 28 is aten::add in
// level1.level2, 25 aten::linear in level1.level2.leaf.proj, 101 aten::mm at the top.
std::vector<OpEvent> synthetic_events() {
  return {{.op = "aten::linear", .handle = 25, .start_ns = 100, .end_ns = 200},
          {.op = "aten::add.Tensor", .handle = 28, .start_ns = 200, .end_ns = 250},
          {.op = "aten::mm", .handle = 101, .start_ns = 300, .end_ns = 400},
          {.op = "aten::add.Tensor", .handle = 28, .start_ns = 400, .end_ns = 430}};
}

struct Model {
  mobile::ModelInfo info = mobile::ModelInfo::load(fixture_path("models/nested.ptl"));
  debuginfo::Symbolicator symbolicator = info.symbolicator();
};

TEST(Profiler, NoSinkByDefaultAndScopesNest) {
  EXPECT_EQ(current_sink(), nullptr);
  RecordingSink outer, inner;
  {
    ProfilingScope a(outer);
    EXPECT_EQ(current_sink(), &outer);
    {
      ProfilingScope b(inner);
      EXPECT_EQ(current_sink(), &inner);
    }
    EXPECT_EQ(current_sink(), &outer);
  }
  EXPECT_EQ(current_sink(), nullptr);
}

// A delegate backend reports its own events, with its own handles and source id, through
// the same sink as the interpreter.
TEST(Profiler, DelegateBackendsReportThroughTheSameSink) {
  struct FakeBackend {
    void execute() {
      if (EventSink* sink = current_sink()) {
        std::int64_t start = now_ns();
        sink->on_op({.op = "backend::fused_conv_relu",
                     .handle = 7,
                     .start_ns = start,
                     .end_ns = now_ns(),
                     .thread = thread_id(),
                     .source = 1});
      }
    }
  } backend;
  RecordingSink events;
  {
    ProfilingScope scope(events);
    backend.execute();
  }
  backend.execute();  // not recorded: the scope is gone
  ASSERT_EQ(events.events().size(), 1u);
  EXPECT_EQ(events.events()[0].source, 1u);
  EXPECT_EQ(events.events()[0].handle, 7);
  EXPECT_LE(events.events()[0].start_ns, events.events()[0].end_ns);
}

TEST(Profiler, AttributionFollowsTheDebugInfo) {
  Model m;
  Attributor attributor(&m.symbolicator, m.info.top_type());
  EXPECT_EQ(attributor.attribute(28).module_path,
            (std::vector<std::string>{"top(Nested)", "level1(Level1)", "level2(Level2)"}));
  EXPECT_EQ(attributor.attribute(28).op, "aten::add");
  EXPECT_EQ(attributor.attribute(101).module_path, (std::vector<std::string>{"top(Nested)"}));
  EXPECT_FALSE(attributor.attribute(999999).known);
}

TEST(Profiler, OpTableSumsToTheTotal) {
  auto table = op_table(synthetic_events());
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0].op, "aten::linear");  // 100 ns, the largest
  std::int64_t total = 0;
  double percent = 0;
  for (const auto& s : table) {
    total += s.total_ns;
    percent += s.percent;
    EXPECT_EQ(s.self_ns, s.total_ns);
  }
  EXPECT_EQ(total, 100 + 50 + 100 + 30);
  EXPECT_NEAR(percent, 100.0, 1e-9);
  auto add = std::find_if(table.begin(), table.end(),
                          [](const auto& s) { return s.op == "aten::add.Tensor"; });
  EXPECT_EQ(add->count, 2u);
  EXPECT_EQ(add->total_ns, 80);
}

void expect_consistent(const ModuleNode& node) {
  std::int64_t children = 0;
  for (const auto& c : node.children) {
    children += c->inclusive_ns;
    expect_consistent(*c);
  }
  EXPECT_EQ(node.inclusive_ns, node.exclusive_ns + children) << node.label;
}

TEST(Profiler, OperatorNamesWithoutOverloadsGroupAsTorchProfilerDoes) {
  EXPECT_EQ(operator_name("aten::add.Tensor"), "aten::add");
  EXPECT_EQ(operator_name("aten::linear"), "aten::linear");
  EXPECT_EQ(operator_name("prim::TupleConstruct"), "prim::TupleConstruct");
  auto events = synthetic_events();
  events.push_back({.op = "aten::add.Scalar", .handle = 28, .start_ns = 500, .end_ns = 520});
  auto table = op_table(events, {OpSort::kName, false, true});
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0].op, "aten::add");
  EXPECT_EQ(table[0].count, 3u);
  EXPECT_EQ(table[0].total_ns, 50 + 30 + 20);
}

TEST(Profiler, TheTextTableEndsWithTotals) {
  auto text = render_op_table(op_table(synthetic_events()));
  auto last = text.substr(text.rfind('\n', text.size() - 2) + 1);
  EXPECT_TRUE(last.starts_with("total ")) << text;
  EXPECT_NE(last.find(" 4 "), std::string::npos) << last;     // calls
  EXPECT_NE(last.find("280 ns"), std::string::npos) << last;  // time
  EXPECT_NE(text.find("aten::linear"), std::string::npos);
  EXPECT_NE(text.find("100 ns"), std::string::npos) << text;
}

TEST(Profiler, ModuleTreeInclusiveIsExclusivePlusChildren) {
  Model m;
  Attributor attributor(&m.symbolicator, m.info.top_type());
  auto root = module_tree(synthetic_events(), attributor);
  EXPECT_EQ(root->label, "top(Nested)");
  EXPECT_EQ(root->inclusive_ns, 280);
  EXPECT_EQ(root->exclusive_ns, 100);  // aten::mm
  expect_consistent(*root);
  ASSERT_EQ(root->children.size(), 1u);
  EXPECT_EQ(root->children[0]->label, "level1(Level1)");
  EXPECT_EQ(root->children[0]->inclusive_ns, 180);
}

TEST(Profiler, FoldedStacksNameModulePathAndOperator) {
  Model m;
  Attributor attributor(&m.symbolicator, m.info.top_type());
  std::string folded = folded_stacks(synthetic_events(), attributor);
  // Nanoseconds, summed per stack: add.Tensor ran 50 + 30 ns.
  EXPECT_NE(folded.find("top(Nested);level1(Level1);level2(Level2);aten::add.Tensor 80\n"),
            std::string::npos)
      << folded;
  EXPECT_NE(folded.find("top(Nested);aten::mm 100\n"), std::string::npos) << folded;
  // The stacks add up to the module tree's inclusive time.
  std::int64_t total = 0;
  for (std::size_t at = 0; at < folded.size();) {
    std::size_t end = folded.find('\n', at);
    total +=
        std::stoll(folded.substr(folded.rfind(' ', end) + 1, end - folded.rfind(' ', end) - 1));
    at = end + 1;
  }
  EXPECT_EQ(total, module_tree(synthetic_events(), attributor)->inclusive_ns);
}

TEST(Profiler, ChromeTraceNestsOperatorsInModules) {
  Model m;
  Attributor attributor(&m.symbolicator, m.info.top_type());
  auto trace = nlohmann::json::parse(chrome_trace(synthetic_events(), attributor).dump());
  const auto& events = trace["traceEvents"];
  std::size_t ops = 0;
  for (const auto& e : events) {
    if (e["ph"] == "M") continue;  // process and thread names
    for (const char* key : {"name", "cat", "ph", "pid", "tid", "ts", "dur"}) {
      ASSERT_TRUE(e.contains(key)) << key;
    }
    EXPECT_EQ(e["ph"], "X");
    if (e.value("cat", "") != "operator") continue;
    ++ops;
    // Every operator lies inside a "top(Nested)" module slice.
    bool inside = false;
    for (const auto& s : events) {
      if (s.value("cat", "") == "module" && s["name"] == "top(Nested)" &&
          s["ts"].get<double>() <= e["ts"].get<double>() &&
          s["ts"].get<double>() + s["dur"].get<double>() >=
              e["ts"].get<double>() + e["dur"].get<double>()) {
        inside = true;
      }
    }
    EXPECT_TRUE(inside) << e.dump();
  }
  EXPECT_EQ(ops, 4u);
}

TEST(Profiler, ChromeTraceIsSortedNamedAndSlicedPerRun) {
  Model m;
  Attributor attributor(&m.symbolicator, m.info.top_type());
  TraceOptions options{"symbolite test", {0, 2}};  // two runs of two operators each
  auto trace = nlohmann::json::parse(chrome_trace(synthetic_events(), attributor, options).dump());
  const auto& events = trace["traceEvents"];
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[0]["ph"], "M");
  EXPECT_EQ(events[0]["name"], "process_name");
  EXPECT_EQ(events[0]["args"]["name"], "symbolite test");
  EXPECT_EQ(events[1]["name"], "thread_name");

  std::vector<nlohmann::json> runs, slices;
  for (const auto& e : events) {
    if (e["ph"] != "X") continue;
    EXPECT_EQ(e["pid"], 1);
    slices.push_back(e);
    if (e.value("cat", "") == "run") runs.push_back(e);
  }
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["name"], "run 1");
  // Microseconds since the first event (at 100 ns) in steps of 1/1024 µs: 150 ns is 154
  // steps, 200 ns 205.
  EXPECT_EQ(runs[0]["ts"].get<double>(), 0.0);
  EXPECT_EQ(runs[0]["dur"].get<double>(), 154.0 / 1024);
  EXPECT_EQ(runs[1]["ts"].get<double>(), 205.0 / 1024);
  // Sorted by start, and a slice that contains another comes first.
  auto end = [](const nlohmann::json& e) { return e["ts"].get<double>() + e["dur"].get<double>(); };
  // A run ends with its last operator at exactly the same time, as a viewer adds them.
  const nlohmann::json* last_op_of_run1 = nullptr;
  for (const auto& e : slices) {
    if (e.value("cat", "") == "operator" && e["ts"].get<double>() < runs[1]["ts"].get<double>()) {
      last_op_of_run1 = &e;
    }
  }
  ASSERT_NE(last_op_of_run1, nullptr);
  EXPECT_EQ(end(runs[0]), end(*last_op_of_run1));
  for (std::size_t i = 1; i < slices.size(); ++i) {
    EXPECT_LE(slices[i - 1]["ts"].get<double>(), slices[i]["ts"].get<double>()) << i;
    if (slices[i - 1]["ts"] == slices[i]["ts"]) {
      EXPECT_GE(end(slices[i - 1]), end(slices[i])) << i;
    }
  }
  // No module slice crosses a run's end: "top(Nested)" appears once per run.
  for (const auto& s : slices) {
    if (s.value("cat", "") != "module") continue;
    bool in_a_run = false;
    for (const auto& r : runs)
      in_a_run |= r["ts"].get<double>() <= s["ts"].get<double>() && end(s) <= end(r) + 1e-9;
    EXPECT_TRUE(in_a_run) << s.dump();
  }
  std::size_t tops = 0;
  for (const auto& s : slices) tops += s["name"] == "top(Nested)";
  EXPECT_EQ(tops, 2u);
}

}  // namespace
}  // namespace symbolite::profiler
