// `Source`: a piece of model source text with the file it came from and the line it starts
// at, plus a line index so offsets turn into line numbers in O(log n).
//
// The text is a `Bytes`: a zero-copy view into the archive (legacy debug_pkl format, where a
// source is one pickled string) or an owned buffer (string-table format, where a source is
// stitched from several table strings). Sources are immutable and shared by every range
// that points into them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/support/bytes.h"

namespace symbolite::debuginfo {

class Source {
 public:
  // `starting_line` is the 1-based line of the file at which `text` begins.
  Source(Bytes text, std::optional<std::string> filename, std::int64_t starting_line);

  std::string_view text() const { return text_.str(); }
  const Bytes& text_bytes() const { return text_; }
  const std::optional<std::string>& filename() const { return filename_; }
  std::int64_t starting_line() const { return starting_line_; }

  // 0-based line of `offset` within the text (offsets past the end map to the last line).
  std::size_t line_index_of(std::size_t offset) const;
  // Offset where 0-based line `line_index` begins.
  std::size_t line_start(std::size_t line_index) const { return line_starts_.at(line_index); }
  // The file's line number of `offset`, as PyTorch prints it: starting_line + line index
  // when the source has a filename, the bare line index otherwise.
  std::int64_t file_line_of(std::size_t offset) const;

 private:
  Bytes text_;
  std::optional<std::string> filename_;
  std::int64_t starting_line_;
  std::vector<std::uint32_t> line_starts_;  // offset of each line's first character
};

using SourcePtr = std::shared_ptr<const Source>;

}  // namespace symbolite::debuginfo
