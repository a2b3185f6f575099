#include "symbolite/debuginfo/source_range.h"

#include <algorithm>

namespace symbolite::debuginfo {

std::string_view SourceRange::text() const {
  if (!source_) return {};
  std::string_view t = source_->text();
  std::size_t begin = std::min(start_, t.size());
  std::size_t end = std::clamp(end_, begin, t.size());
  return t.substr(begin, end - begin);
}

std::optional<FileLineCol> SourceRange::file_line_col() const {
  if (!source_ || !source_->filename()) return std::nullopt;
  std::size_t offset = std::min(start_, source_->text().size());
  std::size_t line_index = source_->line_index_of(offset);
  return FileLineCol{*source_->filename(), source_->file_line_of(offset),
                     offset - source_->line_start(line_index)};
}

}  // namespace symbolite::debuginfo
