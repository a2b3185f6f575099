// Reader for `*.debug_pkl` records: for each serialized code file, the source range of every
// byte offset in the generated code, plus the tag that `callstack_debug_map.pkl` uses to
// refer to that range.
//
// Two formats exist, told apart by the first element:
//   legacy:  ((byte_offset, ((text, filename, starting_line), start, end), tag), ...)
//   string table (PyTorch >= 1.11 default):
//     ("FORMAT_WITH_STRING_TABLE", (str, ...),
//      ((byte_offset, ((text_indices: List[int], filename_index, starting_line), start, end), tag), ...))
//   where a source's text is the concatenation of the table strings at `text_indices`.
// Rows of two elements (byte_offset, range) predate tags; they are kept without a tag.
// Sources shared in the pickle (memoized tuples) become one shared Source. A range in an
// empty source named kUnknownSourceFilename is symbolite's way of writing an unknown range
// that PyTorch still loads: it reads back as unknown.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbolite/debuginfo/source_range.h"
#include "symbolite/pickle/value.h"

namespace symbolite::debuginfo {

// The file name of the empty source symbolite writes for an unknown range
// (debug_records_writer.h): a range in that source reads back as unknown.
inline constexpr std::string_view kUnknownSourceFilename = "<unknown source range>";

// The first element of a record in the string-table format.
inline constexpr std::string_view kStringTableMarker = "FORMAT_WITH_STRING_TABLE";

struct SourceRangeRecord {
  std::int64_t byte_offset = 0;  // offset in the serialized code file
  SourceRange range;             // range in the original source
  std::int64_t tag = -1;         // -1 when the row carries none
};

struct SourceRangeFile {
  bool string_table_format = false;
  std::size_t string_table_size = 0;
  std::vector<SourceRangeRecord> records;
};

// What the debug_pkl records of one model may decode to: every distinct source counts its
// text and line index (4 bytes a line), whether its text is a view into the file or joined
// from string-table pieces. A few bytes of pickle can name one large piece thousands of
// times, so without a bound a small file decodes to gigabytes. Legitimate files decode each
// source once, to about the size of their string table.
class SourceTextBudget {
 public:
  // The default for records of `record_bytes` in all: 64 MiB plus 16 bytes per record byte.
  static SourceTextBudget for_records(std::size_t record_bytes);
  explicit SourceTextBudget(std::size_t limit) : limit_(limit) {}

  // Throws Error(kLimit) when `bytes` more would pass the limit.
  void charge(std::size_t bytes);
  std::size_t limit() const { return limit_; }

 private:
  std::size_t limit_;
  std::size_t used_ = 0;
};

// Decodes one unpickled debug_pkl. Throws Error(kModel) naming the row on a malformed shape,
// Error(kLimit) when its sources pass `budget`.
SourceRangeFile read_source_range_file(const pickle::Value& root, SourceTextBudget& budget);

// Tag -> range over all debug_pkl files of an archive. The first range seen for a tag wins,
// as in PyTorch.
using SourceRangeTags = std::unordered_map<std::int64_t, SourceRange>;
void add_tags(const SourceRangeFile& file, SourceRangeTags& tags);

}  // namespace symbolite::debuginfo
