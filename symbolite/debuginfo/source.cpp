#include "symbolite/debuginfo/source.h"

#include <algorithm>

namespace symbolite::debuginfo {

Source::Source(Bytes text, std::optional<std::string> filename, std::int64_t starting_line)
    : text_(std::move(text)), filename_(std::move(filename)), starting_line_(starting_line) {
  std::string_view t = text_.str();
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '\n') line_starts_.push_back(static_cast<std::uint32_t>(i + 1));
  }
}

std::size_t Source::line_index_of(std::size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<std::size_t>(it - line_starts_.begin()) - 1;
}

std::int64_t Source::file_line_of(std::size_t offset) const {
  auto index = static_cast<std::int64_t>(line_index_of(offset));
  return filename_ ? index + starting_line_ : index;
}

}  // namespace symbolite::debuginfo
