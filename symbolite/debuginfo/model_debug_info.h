// `ModelDebugInfo`: all debug information a model archive carries, read in one go:
// every `*.debug_pkl` (source ranges by tag), `callstack_debug_map.pkl` (handle -> call
// stack), `mobile_debug_handles.pkl` (instruction -> handle). Each part may be absent; the
// `has_*` flags say which were found so that answers can explain what is missing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symbolite/archive/model_archive.h"
#include "symbolite/debuginfo/callstack_map_reader.h"
#include "symbolite/debuginfo/debug_table.h"
#include "symbolite/debuginfo/handle_table_reader.h"
#include "symbolite/debuginfo/source_range_reader.h"

namespace symbolite::debuginfo {

struct DebugRecordInfo {
  std::string record;      // "code/__torch__.py.debug_pkl"
  std::uint64_t size = 0;  // uncompressed bytes
  std::size_t rows = 0;
  bool string_table_format = false;
};

struct ModelDebugInfo {
  std::vector<DebugRecordInfo> source_range_files;
  SourceRangeTags tags;
  bool has_callstack_map = false;
  std::uint64_t callstack_map_size = 0;
  CallstackMapStats callstack_stats;
  DebugTable table;
  bool has_handle_table = false;
  std::uint64_t handle_table_size = 0;
  HandleTable handles;

  // Reads whatever debug records `archive` holds. Throws Error (naming archive and entry)
  // when a record that is present is malformed.
  static ModelDebugInfo load(const archive::ModelArchive& archive);
  // What loading for running needs: whether the call-stack map and the handle table are
  // there, and their sizes (has_* and *_size); no record is decoded.
  static ModelDebugInfo find_records(const archive::ModelArchive& archive);
};

}  // namespace symbolite::debuginfo
