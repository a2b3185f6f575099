// `SourceRange`: a [start, end) byte range in a Source. A range with no source is the
// explicit "unknown" location: it is a value, never a null pointer to check for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "symbolite/debuginfo/source.h"

namespace symbolite::debuginfo {

// A file position as printed in tracebacks. `line` follows Source::file_line_of; `column`
// is 0-based, in bytes.
struct FileLineCol {
  std::string filename;
  std::int64_t line = 0;
  std::size_t column = 0;
};

class SourceRange {
 public:
  SourceRange() = default;  // unknown
  SourceRange(SourcePtr source, std::size_t start, std::size_t end)
      : source_(std::move(source)), start_(start), end_(end) {}

  bool known() const { return source_ != nullptr; }
  const SourcePtr& source() const { return source_; }
  std::size_t start() const { return start_; }
  std::size_t end() const { return end_; }

  // The highlighted text (clamped to the source), empty when unknown.
  std::string_view text() const;
  // Position of `start`, when the range is known and its source has a filename.
  std::optional<FileLineCol> file_line_col() const;

 private:
  SourcePtr source_;
  std::size_t start_ = 0;
  std::size_t end_ = 0;
};

}  // namespace symbolite::debuginfo
