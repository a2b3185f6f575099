#include "symbolite/debuginfo/debug_records_writer.h"

#include <functional>
#include <tuple>
#include <unordered_map>

#include "symbolite/debuginfo/source_range_reader.h"
#include "symbolite/pickle/pickler.h"

namespace symbolite::debuginfo {
namespace {

using pickle::Value;
using pickle::ValueList;

std::string to_string(const std::vector<std::uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

Value int_list(const std::vector<std::int64_t>& values) {
  ValueList items;
  items.reserve(values.size());
  for (std::int64_t v : values) items.push_back(Value::integer(v));
  return Value::list(std::move(items)).with_list_tag(pickle::ListTag::kInt);
}

// Tags every distinct known range in first-appearance order.
class RangeTags {
 public:
  void add(const SourceRange& range) {
    if (!range.known()) return;
    if (index_.emplace(key(range), ranges_.size()).second) ranges_.push_back(range);
  }
  std::int64_t tag_of(const SourceRange& range) const {
    if (!range.known()) return kNoSourceRangeTag;
    return static_cast<std::int64_t>(index_.at(key(range)));
  }
  const std::vector<SourceRange>& ranges() const { return ranges_; }

 private:
  using Key = std::tuple<const Source*, std::size_t, std::size_t>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = std::hash<const void*>()(std::get<0>(k));
      h = h * 31 + std::get<1>(k);
      return h * 31 + std::get<2>(k);
    }
  };
  static Key key(const SourceRange& r) { return {r.source().get(), r.start(), r.end()}; }

  std::unordered_map<Key, std::size_t, KeyHash> index_;
  std::vector<SourceRange> ranges_;
};

// The string table and one shared tuple per Source, as PyTorch's SourceRangeSerializer
// builds them: a source is its lines (each up to and including its '\n', then what
// follows the last '\n', possibly empty), every distinct string stored once.
class SourceTable {
 public:
  Value source(const SourcePtr& s) {
    if (auto it = sources_.find(s.get()); it != sources_.end()) return it->second;
    std::vector<std::int64_t> lines;
    std::string_view text = s->text();
    std::size_t begin = 0;
    for (std::size_t nl = text.find('\n'); nl != std::string_view::npos;
         nl = text.find('\n', begin)) {
      lines.push_back(intern(text.substr(begin, nl + 1 - begin)));
      begin = nl + 1;
    }
    lines.push_back(intern(text.substr(begin)));
    std::int64_t filename = intern(s->filename().value_or(""));
    Value v = Value::tuple(
        {int_list(lines), Value::integer(filename), Value::integer(s->starting_line())});
    sources_.emplace(s.get(), v);
    return v;
  }

  // The source of an unknown range: no lines, the marker filename.
  Value unknown_source() {
    if (unknown_.is_none()) {
      unknown_ = Value::tuple(
          {int_list({}), Value::integer(intern(kUnknownSourceFilename)), Value::integer(0)});
    }
    return unknown_;
  }

  Value strings() const {
    ValueList items;
    items.reserve(strings_.size());
    for (const auto& s : strings_) items.push_back(Value::string(s));
    return Value::tuple(std::move(items));
  }

 private:
  std::int64_t intern(std::string_view s) {
    auto [it, added] = index_.emplace(std::string(s), strings_.size());
    if (added) strings_.emplace_back(s);
    return static_cast<std::int64_t>(it->second);
  }

  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::string> strings_;
  std::unordered_map<const Source*, Value> sources_;
  Value unknown_;
};

std::string write_source_ranges(const RangeTags& tags, bool needs_unknown_row) {
  SourceTable table;
  ValueList rows;
  std::int64_t row = 0;
  for (const auto& range : tags.ranges()) {
    Value r = Value::tuple({table.source(range.source()),
                            Value::integer(static_cast<std::int64_t>(range.start())),
                            Value::integer(static_cast<std::int64_t>(range.end()))});
    rows.push_back(Value::tuple({Value::integer(row), std::move(r), Value::integer(row)}));
    ++row;
  }
  if (needs_unknown_row) {
    Value r = Value::tuple({table.unknown_source(), Value::integer(0), Value::integer(0)});
    rows.push_back(
        Value::tuple({Value::integer(row), std::move(r), Value::integer(kNoSourceRangeTag)}));
  }
  return to_string(pickle::pickle(Value::tuple(
      {Value::string(kStringTableMarker), table.strings(), Value::tuple(std::move(rows))})));
}

// One tuple per InlinedCallStack node, shared like the nodes.
class CallStackValues {
 public:
  explicit CallStackValues(const RangeTags& tags) : tags_(tags) {}

  Value of(const InlinedCallStackPtr& cs) {
    if (!cs) return Value::none();
    if (auto it = cache_.find(cs.get()); it != cache_.end()) return it->second;
    Value instance;
    if (const auto& m = cs->module_instance()) {
      instance = Value::tuple({Value::string(m->type_name), Value::string(m->instance_name)});
    }
    Value v = Value::tuple({std::move(instance), Value::integer(tags_.tag_of(cs->callsite())),
                            of(cs->callee()), Value::string(cs->function_name())});
    cache_.emplace(cs.get(), v);
    return v;
  }

 private:
  const RangeTags& tags_;
  std::unordered_map<const InlinedCallStack*, Value> cache_;
};

std::string write_callstack_map(const DebugRecords& records, const RangeTags& tags) {
  CallStackValues stacks(tags);
  ValueList rows;
  rows.reserve(records.infos.size());
  for (const auto& [handle, info] : records.infos) {
    rows.push_back(Value::tuple({Value::integer(handle), Value::integer(tags.tag_of(info.range)),
                                 Value::string(info.node_kind), stacks.of(info.call_stack)}));
  }
  return to_string(pickle::pickle(Value::tuple(std::move(rows))));
}

std::string write_handle_table(const DebugRecords& records, std::int64_t bytecode_version) {
  ValueList top{Value::integer(bytecode_version)};
  for (const auto& [function, handles] : records.function_handles) {
    Value field =
        Value::tuple({Value::string("function_debug_handles"), Value::tuple({int_list(handles)})});
    top.push_back(Value::tuple({Value::string(function), Value::tuple({std::move(field)})}));
  }
  return to_string(pickle::pickle(Value::tuple(std::move(top))));
}

}  // namespace

DebugRecords debug_records_from(const HandleTable& handles, const DebugTable& table) {
  DebugRecords records;
  for (const auto& f : handles.functions())
    records.function_handles.emplace_back(f.function, f.handles);
  for (DebugHandle h : table.handles()) records.infos.emplace(h, *table.find(h));
  return records;
}

std::vector<std::pair<std::string, std::string>> write_debug_records(
    const DebugRecords& records, std::int64_t bytecode_version) {
  RangeTags tags;
  bool unknown_row = false;
  for (const auto& [handle, info] : records.infos) {
    tags.add(info.range);
    unknown_row = unknown_row || !info.range.known();
    for (const InlinedCallStack* cs = info.call_stack.get(); cs != nullptr;
         cs = cs->callee().get()) {
      tags.add(cs->callsite());
    }
  }
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back(std::string(kHandleTableRecord), write_handle_table(records, bytecode_version));
  out.emplace_back(std::string(kSourceRangesRecord), write_source_ranges(tags, unknown_row));
  out.emplace_back("callstack_debug_map.pkl", write_callstack_map(records, tags));
  return out;
}

}  // namespace symbolite::debuginfo
