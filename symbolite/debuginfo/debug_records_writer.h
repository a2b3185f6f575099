// Writing debug information back into the records PyTorch 1.13's lite interpreter reads
// beside `bytecode.pkl`: the inverse of handle_table_reader.h, callstack_map_reader.h and
// source_range_reader.h.
//
//   mobile_debug_handles.pkl  (version, (function, (("function_debug_handles", (List[int],)),)), ...)
//   callstack_debug_map.pkl   ((handle, range_tag, node_kind, call_stack), ...), call stacks
//                             outermost first, each shared InlinedCallStack node written once
//                             (a memoized tuple)
//   code/symbolite_source_ranges.debug_pkl
//                             ("FORMAT_WITH_STRING_TABLE", strings, ((row, range, tag), ...)):
//                             every range the infos and their call stacks refer to
//
// Range tags are the writer's: one per distinct range (same Source object, start and end),
// numbered from 0 in first-appearance order, walking `infos` by handle and, per handle, its
// own range then its call stack's call sites outermost first.
//
// Unknown ranges (no source) get tag -1. PyTorch 1.13 accepts -1 in a call-stack frame (the
// frame has no range and its traceback leaves it out) but requires a row's tag to be in the
// source-range map; so when a row's range is unknown the debug_pkl also holds a row with tag
// -1 whose range is empty, in an empty source named kUnknownSourceFilename. symbolite's
// reader maps that source back to an unknown range (source_range_reader.h) and ignores tag
// -1 rows anyway, so both read as unknown.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/debuginfo/debug_table.h"
#include "symbolite/debuginfo/handle_table_reader.h"

namespace symbolite::debuginfo {

struct DebugRecords {
  // Per bytecode function, in export order: its qualified name and the handle of each
  // instruction.
  std::vector<std::pair<std::string, std::vector<DebugHandle>>> function_handles;
  // Every handle's debug info (source range, node kind, inlined call stack).
  std::map<DebugHandle, DebugInfo> infos;
};

// The records of a model read back (ModelDebugInfo's handle table and debug table): writing
// them gives a model that symbolicates every handle as the original does.
DebugRecords debug_records_from(const HandleTable& handles, const DebugTable& table);

// The record holding the source ranges write_debug_records writes.
inline constexpr std::string_view kSourceRangesRecord = "code/symbolite_source_ranges.debug_pkl";

// The pickled records to store beside bytecode.pkl, as {record name, bytes}, in the order
// PyTorch writes them: "mobile_debug_handles.pkl", kSourceRangesRecord,
// "callstack_debug_map.pkl". Deterministic: equal input, equal bytes.
std::vector<std::pair<std::string, std::string>> write_debug_records(const DebugRecords& records,
                                                                     std::int64_t bytecode_version);

}  // namespace symbolite::debuginfo
