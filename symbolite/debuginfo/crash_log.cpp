#include "symbolite/debuginfo/crash_log.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <unordered_map>

namespace symbolite::debuginfo {
namespace {

bool starts_with_ci(std::string_view text, std::size_t pos, std::string_view word) {
  if (text.size() - pos < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[pos + i])) != word[i]) return false;
  }
  return true;
}

void skip_blanks(std::string_view text, std::size_t& pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
}

// An optionally negative decimal integer at `pos`: parsed, or too large for a handle (its
// digits are still consumed, so the numbers around it are kept), or absent.
struct ParsedNumber {
  enum class Status { kHandle, kOutOfRange, kNone } status = Status::kNone;
  DebugHandle value = 0;
};

ParsedNumber parse_handle(std::string_view text, std::size_t& pos) {
  ParsedNumber out;
  const char* first = text.data() + pos;
  auto [end, ec] = std::from_chars(first, text.data() + text.size(), out.value);
  if (end == first) return out;
  if (ec == std::errc::result_out_of_range) {
    out.status = ParsedNumber::Status::kOutOfRange;
  } else if (ec == std::errc()) {
    out.status = ParsedNumber::Status::kHandle;
  } else {
    return out;
  }
  pos += static_cast<std::size_t>(end - first);
  return out;
}

// "debug_handles:{12, 13}" with `pos` just past "debug_handles". Numbers too large for a
// handle are counted in `skipped`.
std::optional<std::vector<DebugHandle>> parse_handle_set(std::string_view text, std::size_t& pos,
                                                         std::size_t& skipped) {
  skip_blanks(text, pos);
  if (pos >= text.size() || text[pos] != ':') return std::nullopt;
  ++pos;
  skip_blanks(text, pos);
  if (pos >= text.size() || text[pos] != '{') return std::nullopt;
  ++pos;
  std::vector<DebugHandle> handles;
  while (true) {
    skip_blanks(text, pos);
    ParsedNumber number = parse_handle(text, pos);
    if (number.status == ParsedNumber::Status::kNone) return std::nullopt;
    if (number.status == ParsedNumber::Status::kHandle) {
      handles.push_back(number.value);
    } else {
      ++skipped;
    }
    skip_blanks(text, pos);
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos < text.size() && text[pos] == '}') {
      ++pos;
      return handles;
    }
    return std::nullopt;
  }
}

// "debug handle 12" / "debug_handle: 12" / "debug handle=12" with `pos` just past the words.
std::optional<DebugHandle> parse_single(std::string_view text, std::size_t& pos) {
  skip_blanks(text, pos);
  if (pos < text.size() && (text[pos] == ':' || text[pos] == '=')) ++pos;
  skip_blanks(text, pos);
  ParsedNumber number = parse_handle(text, pos);
  if (number.status != ParsedNumber::Status::kHandle) return std::nullopt;
  return number.value;
}

}  // namespace

std::vector<HandleMention> find_handle_mentions(std::string_view text) {
  std::vector<HandleMention> mentions;
  std::size_t line = 1;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '\n') {
      ++line;
      ++pos;
      continue;
    }
    if (!starts_with_ci(text, pos, "debug")) {
      ++pos;
      continue;
    }
    const std::size_t start = pos;
    std::size_t cursor = pos + 5;
    if (starts_with_ci(text, cursor, "_handles")) {
      cursor += 8;
      std::size_t skipped = 0;
      if (auto handles = parse_handle_set(text, cursor, skipped)) {
        mentions.push_back(HandleMention{line, start, std::move(*handles), skipped});
        pos = cursor;
        continue;
      }
    } else if (starts_with_ci(text, cursor, "_handle") || starts_with_ci(text, cursor, " handle")) {
      cursor += 7;
      if (auto handle = parse_single(text, cursor)) {
        mentions.push_back(HandleMention{line, start, {*handle}, 0});
        pos = cursor;
        continue;
      }
    }
    pos = start + 1;
  }
  return mentions;
}

LogHandles log_handles(std::string_view text) {
  LogHandles out;
  std::unordered_map<DebugHandle, std::size_t> index;  // handle -> position in out.handles
  for (const auto& mention : find_handle_mentions(text)) {
    out.skipped += mention.skipped;
    for (DebugHandle handle : mention.handles) {
      auto [it, inserted] = index.emplace(handle, out.handles.size());
      if (inserted) out.handles.push_back(LoggedHandle{handle, mention.line, 0});
      ++out.handles[it->second].mentions;
    }
  }
  return out;
}

}  // namespace symbolite::debuginfo
