// write_debug_records follows its rules: tags in first-appearance order (handles ascending,
// each handle's range then its call sites outermost first), one per distinct range; shared
// call-stack nodes written once; sources as PyTorch splits them, each line stored once; the
// unknown-range convention; the readers read back what was written.
#include "symbolite/debuginfo/debug_records_writer.h"

#include <gtest/gtest.h>

#include "symbolite/debuginfo/callstack_map_reader.h"
#include "symbolite/debuginfo/handle_table_reader.h"
#include "symbolite/debuginfo/source_range_reader.h"
#include "symbolite/pickle/unpickler.h"

namespace symbolite::debuginfo {
namespace {

pickle::Value unpickled(const std::string& bytes) {
  return pickle::unpickle(Bytes::copy_of(bytes));
}

struct Written {
  pickle::Value handles, ranges, map;
};

Written write(const DebugRecords& records) {
  auto out = write_debug_records(records, 8);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].first, "mobile_debug_handles.pkl");
  EXPECT_EQ(out[1].first, kSourceRangesRecord);
  EXPECT_EQ(out[2].first, "callstack_debug_map.pkl");
  EXPECT_EQ(out, write_debug_records(records, 8));  // deterministic
  return {unpickled(out[0].second), unpickled(out[1].second), unpickled(out[2].second)};
}

TEST(DebugRecordsWriter, TagsSharingAndSources) {
  auto file = std::make_shared<Source>(Bytes::copy_of("a\nb\na\n"), "m.py", 10);
  auto other = std::make_shared<Source>(Bytes::copy_of("x = 1"), "n.py", 1);
  auto inner = std::make_shared<InlinedCallStack>(ModuleInstance{"__torch__.B", "b"},
                                                  SourceRange(other, 0, 1), 7, "forward", nullptr);
  auto outer = std::make_shared<InlinedCallStack>(ModuleInstance{"__torch__.A", "a"},
                                                  SourceRange(file, 2, 3), 9, "forward", inner);
  DebugRecords records;
  records.function_handles = {{"__torch__.M.forward", {5, 2, -1}}, {"__torch__.M.g", {}}};
  // Handle 5 comes after 2: its range was already tagged through 2's call stack.
  records.infos[5] = DebugInfo{SourceRange(file, 2, 3), 0, "aten::mul", nullptr};
  records.infos[2] = DebugInfo{SourceRange(file, 0, 1), 0, "aten::add", outer};
  records.infos[3] = DebugInfo{SourceRange(file, 0, 1), 0, "aten::sub", outer};

  Written w = write(records);
  // Sources: the string table holds each line once, "" for the text after the last '\n'.
  const auto& top = w.ranges.as_tuple();
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].as_string(), "FORMAT_WITH_STRING_TABLE");
  std::vector<std::string> strings;
  for (const auto& s : top[1].as_tuple()) strings.emplace_back(s.as_string());
  EXPECT_EQ(strings, (std::vector<std::string>{"a\n", "b\n", "", "m.py", "x = 1", "n.py"}));
  const auto& rows = top[2].as_tuple();
  ASSERT_EQ(rows.size(), 3u);  // (file 0-1), (file 2-3), (other 0-1); no unknown row
  std::vector<std::int64_t> text;
  for (const auto& i : rows[0].as_tuple()[1].as_tuple()[0].as_tuple()[0].as_list()) {
    text.push_back(i.as_int());
  }
  EXPECT_EQ(text, (std::vector<std::int64_t>{0, 1, 0, 2}));
  EXPECT_EQ(rows[0].as_tuple()[1].as_tuple()[0].identity(),
            rows[1].as_tuple()[1].as_tuple()[0].identity());  // one tuple per Source

  SourceRangeTags tags;
  auto budget = SourceTextBudget::for_records(0);
  add_tags(read_source_range_file(w.ranges, budget), tags);
  ASSERT_EQ(tags.size(), 3u);
  EXPECT_EQ(tags.at(0).start(), 0u);                   // handle 2's own range
  EXPECT_EQ(tags.at(1).start(), 2u);                   // its outer call site
  EXPECT_EQ(tags.at(2).source()->filename(), "n.py");  // its inner call site
  EXPECT_EQ(tags.at(0).source()->starting_line(), 10);

  // Rows carry the writer's tags; handles 2 and 3 share one call-stack tuple.
  const auto& map = w.map.as_tuple();
  ASSERT_EQ(map.size(), 3u);
  EXPECT_EQ(map[0].as_tuple()[0].as_int(), 2);
  EXPECT_EQ(map[2].as_tuple()[1].as_int(), 1);  // handle 5: same range as the outer call site
  EXPECT_EQ(map[0].as_tuple()[3].identity(), map[1].as_tuple()[3].identity());
  DebugTable table = read_callstack_map(w.map, tags);
  const DebugInfo* info = table.find(2);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->node_kind, "aten::add");
  EXPECT_EQ(info->call_stack, table.find(3)->call_stack);
  EXPECT_EQ(info->call_stack->callsite().start(), 2u);
  EXPECT_EQ(info->call_stack->callee()->module_instance()->type_name, "__torch__.B");
  EXPECT_EQ(info->call_stack->callee()->callsite().text(), "x");

  HandleTable handles = read_handle_table(w.handles);
  EXPECT_EQ(handles.bytecode_version(), 8);
  ASSERT_EQ(handles.functions().size(), 2u);
  EXPECT_EQ(handles.functions()[0].handles, (std::vector<DebugHandle>{5, 2, -1}));
  EXPECT_TRUE(handles.functions()[1].handles.empty());
}

TEST(DebugRecordsWriter, UnknownRangesAndEmptyInput) {
  DebugRecords records;
  auto frame =
      std::make_shared<InlinedCallStack>(std::nullopt, SourceRange(), -1, "helper", nullptr);
  records.infos[0] = DebugInfo{SourceRange(), -1, "aten::size", frame};
  Written w = write(records);
  const auto& rows = w.ranges.as_tuple()[2].as_tuple();
  ASSERT_EQ(rows.size(), 1u);  // only the marker row
  EXPECT_EQ(rows[0].as_tuple()[2].as_int(), -1);
  auto budget = SourceTextBudget::for_records(0);
  auto file = read_source_range_file(w.ranges, budget);
  EXPECT_FALSE(file.records[0].range.known());
  SourceRangeTags tags;
  add_tags(file, tags);
  EXPECT_TRUE(tags.empty());
  DebugTable table = read_callstack_map(w.map, tags);
  EXPECT_FALSE(table.find(0)->range.known());
  EXPECT_FALSE(table.find(0)->call_stack->callsite().known());
  EXPECT_FALSE(table.find(0)->call_stack->module_instance().has_value());

  Written empty = write(DebugRecords{});
  EXPECT_TRUE(empty.map.as_tuple().empty());
  EXPECT_TRUE(empty.ranges.as_tuple()[2].as_tuple().empty());
  EXPECT_EQ(read_handle_table(empty.handles).functions().size(), 0u);
}

}  // namespace
}  // namespace symbolite::debuginfo
