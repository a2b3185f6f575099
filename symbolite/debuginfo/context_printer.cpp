#include "symbolite/debuginfo/context_printer.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/support/printable_text.h"

namespace symbolite::debuginfo {
namespace {

// PyTorch indexes std::string up to size() (which yields '\0'); a string_view must not.
char at(std::string_view s, std::size_t i) { return i < s.size() ? s[i] : '\0'; }

}  // namespace

void print_with_context(std::string& out, const SourceRange& range, std::string_view function,
                        std::size_t context, bool highlight) {
  if (!range.known()) return;
  std::string_view str = range.source()->text();
  const std::size_t start = range.start();
  if (range.end() - start == str.size()) {
    // The range is the whole text: print it as is (PyTorch's rule, used for whole files).
    out += str;
    return;
  }
  // Some ranges run past the end of their source; clamp as PyTorch does.
  const std::size_t range_end = std::min(str.size(), range.end());
  if (start > str.size()) return;

  std::size_t begin_line = start;
  std::size_t end_line = range_end;
  while (begin_line > 0 && str[begin_line - 1] != '\n') --begin_line;
  while (end_line < str.size() && str[end_line] != '\n') ++end_line;

  std::size_t begin_context = begin_line;  // `context` lines before the highlighted ones
  for (std::size_t lines = 0; begin_context > 0; --begin_context) {
    if (str[begin_context - 1] == '\n') ++lines;
    if (lines >= context) break;
  }
  std::size_t end_context = end_line;  // `context` lines after them
  for (std::size_t lines = 0; end_context < str.size(); ++end_context) {
    if (str[end_context] == '\n') ++lines;
    if (lines >= context) break;
  }

  if (auto position = range.file_line_col()) {
    out += fmt::format("  File \"{}\", line {}", single_line(position->filename), position->line);
    if (!function.empty()) fmt::format_to(std::back_inserter(out), ", in {}", function);
    out += '\n';
  }
  out += str.substr(begin_context, start - begin_context);

  std::size_t line_start = start;
  std::size_t line_end = range_end;
  if (highlight) {
    line_end = start;
    while (line_start < range_end) {
      while (line_end < str.size() && str[line_end] != '\n') ++line_end;
      std::string_view line = str.substr(line_start, line_end - line_start + 1);
      out += line;
      if (line.empty() || line.back() != '\n') out += '\n';

      // Underline from the first non-blank character (or the range start) to the range end
      // on this line.
      std::size_t highlight_begin = line_start;
      std::size_t highlight_end = line_start;
      while (highlight_begin > 0 && str[highlight_begin - 1] != '\n') --highlight_begin;
      while (highlight_end < range_end && str[highlight_end] != '\n') ++highlight_end;
      std::size_t empty_space = 0;
      for (std::size_t i = highlight_begin; i < highlight_end; ++i) {
        if (str[i] == ' ' || i < start) {
          ++empty_space;
        } else {
          break;
        }
      }
      std::size_t highlight_space = highlight_end - highlight_begin - empty_space;
      if (highlight_space > 0) {
        // A range may end in blank lines; only mark HERE on the last line with code.
        bool more_lines = false;
        for (std::size_t i = line_end; i <= range_end; ++i) {
          char c = at(str, i);
          if (c != '\n' && c != ' ') more_lines = true;
        }
        out.append(empty_space, ' ');
        out.append(highlight_space, '~');
        out += (more_lines && line_end != range_end) ? "\n" : " <--- HERE\n";
      }
      ++line_end;
      line_start = line_end;
    }
  } else {
    out += str.substr(start, range_end - start);
  }
  if (line_end <= str.size()) {
    std::string_view tail = str.substr(line_end, end_context - line_end);
    out += tail;
    if (!tail.empty() && tail.back() != '\n') out += '\n';
  }
}

}  // namespace symbolite::debuginfo
