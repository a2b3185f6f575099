#include "symbolite/debuginfo/model_debug_info.h"

#include "symbolite/archive/pickle_record.h"

namespace symbolite::debuginfo {
namespace {

constexpr std::string_view kCallstackMap = "callstack_debug_map.pkl";
constexpr std::string_view kSourceRangeSuffix = ".debug_pkl";

}  // namespace

ModelDebugInfo ModelDebugInfo::load(const archive::ModelArchive& archive) {
  ModelDebugInfo info = find_records(archive);
  // PyTorch reads every record ending in .debug_pkl (code/*.debug_pkl and
  // delegated_backends.debug_pkl alike) into one tag map.
  std::size_t record_bytes = 0;
  for (const auto& record : archive.records()) {
    if (record.ends_with(kSourceRangeSuffix))
      record_bytes += archive.record_size(record).value_or(0);
  }
  auto budget = SourceTextBudget::for_records(record_bytes);
  for (const auto& record : archive.records()) {
    if (!record.ends_with(kSourceRangeSuffix)) continue;
    SourceRangeFile file = archive::decode_pickle_record(
        archive, record, [&](const pickle::Value& v) { return read_source_range_file(v, budget); });
    add_tags(file, info.tags);
    info.source_range_files.push_back(
        DebugRecordInfo{record, archive.record_size(record).value_or(0), file.records.size(),
                        file.string_table_format});
  }
  if (info.has_callstack_map) {
    info.table = archive::decode_pickle_record(archive, kCallstackMap, [&](const pickle::Value& v) {
      return read_callstack_map(v, info.tags, &info.callstack_stats);
    });
  }
  if (info.has_handle_table) {
    info.handles = archive::decode_pickle_record(
        archive, kHandleTableRecord, [](const pickle::Value& v) { return read_handle_table(v); });
  }
  return info;
}

ModelDebugInfo ModelDebugInfo::find_records(const archive::ModelArchive& archive) {
  ModelDebugInfo info;
  if (archive.has_record(kCallstackMap)) {
    info.has_callstack_map = true;
    info.callstack_map_size = archive.record_size(kCallstackMap).value_or(0);
  }
  if (archive.has_record(kHandleTableRecord)) {
    info.has_handle_table = true;
    info.handle_table_size = archive.record_size(kHandleTableRecord).value_or(0);
  }
  return info;
}

}  // namespace symbolite::debuginfo
