#include "symbolite/debuginfo/callstack_map_reader.h"

#include <unordered_map>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::debuginfo {
namespace {

class CallStackDecoder {
 public:
  CallStackDecoder(const SourceRangeTags& tags, CallstackMapStats& stats)
      : tags_(tags), stats_(stats) {}

  SourceRange resolve(std::int64_t tag) {
    auto it = tags_.find(tag);
    if (it != tags_.end()) return it->second;
    ++stats_.unresolved_tags;
    return SourceRange();
  }

  InlinedCallStackPtr decode(const pickle::Value& v, std::size_t depth = 0) {
    if (v.is_none()) return nullptr;
    if (auto it = cache_.find(v.identity()); it != cache_.end()) return it->second;
    if (depth > kMaxDepth) {
      throw Error(ErrorKind::kLimit,
                  fmt::format("call stack nested deeper than {} calls", kMaxDepth));
    }
    const auto& items = v.as_tuple();
    if (items.size() != 4) {
      throw Error(ErrorKind::kModel,
                  fmt::format("call stack: expected a tuple of 4 elements (module_instance, "
                              "callsite_tag, callee, function_name), got {}",
                              items.size()));
    }
    std::optional<ModuleInstance> instance;
    if (!items[0].is_none()) {
      const auto& pair = items[0].as_tuple();
      if (pair.size() != 2) {
        throw Error(
            ErrorKind::kModel,
            fmt::format("module instance: expected (type, name), got {} elements", pair.size()));
      }
      instance = ModuleInstance{std::string(pair[0].as_string()), std::string(pair[1].as_string())};
    }
    std::int64_t tag = items[1].as_int();
    auto node = std::make_shared<InlinedCallStack>(std::move(instance), resolve(tag), tag,
                                                   std::string(items[3].as_string()),
                                                   decode(items[2], depth + 1));
    cache_.emplace(v.identity(), node);
    ++stats_.shared_call_stacks;
    return node;
  }

 private:
  static constexpr std::size_t kMaxDepth = 10000;
  const SourceRangeTags& tags_;
  CallstackMapStats& stats_;
  std::unordered_map<const void*, InlinedCallStackPtr> cache_;
};

}  // namespace

DebugTable read_callstack_map(const pickle::Value& root, const SourceRangeTags& tags,
                              CallstackMapStats* stats) {
  CallstackMapStats local;
  CallstackMapStats& s = stats ? *stats : local;
  CallStackDecoder decoder(tags, s);
  DebugTable table;
  const auto& rows = root.as_tuple();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    with_context(fmt::format("row {}", i), [&] {
      const auto& row = rows[i].as_tuple();
      if (row.size() != 4) {
        throw Error(ErrorKind::kModel,
                    fmt::format("expected a tuple of 4 elements (debug_handle, "
                                "source_range_tag, node_kind, call_stack), got {}",
                                row.size()));
      }
      DebugHandle handle = row[0].as_int();
      DebugInfo info;
      info.range_tag = row[1].as_int();
      info.range = decoder.resolve(info.range_tag);
      if (!tags.contains(info.range_tag)) ++s.unresolved_row_tags;
      info.node_kind = std::string(row[2].as_string());
      info.call_stack = decoder.decode(row[3]);
      if (!table.insert(handle, std::move(info))) {
        throw Error(ErrorKind::kModel, fmt::format("debug handle {} appears twice", handle));
      }
    });
  }
  s.rows = rows.size();
  return table;
}

}  // namespace symbolite::debuginfo
