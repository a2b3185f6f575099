#include "symbolite/support/printable_text.h"

#include <cstdint>

#include <fmt/format.h>

namespace symbolite {
namespace {

// Length of the valid UTF-8 sequence at text[i], or 0 if the bytes there are not one
// (overlong forms, surrogates and code points past U+10FFFF included).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t lead = byte(i);
  std::size_t length = 0;
  std::uint32_t min = 0;
  std::uint32_t code = 0;
  if (lead >= 0xc2 && lead <= 0xdf)
    length = 2, min = 0x80, code = lead & 0x1f;
  else if (lead >= 0xe0 && lead <= 0xef)
    length = 3, min = 0x800, code = lead & 0x0f;
  else if (lead >= 0xf0 && lead <= 0xf4)
    length = 4, min = 0x10000, code = lead & 0x07;
  else
    return 0;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

bool is_plain(char c, Newlines newlines) {
  auto b = static_cast<std::uint8_t>(c);
  if (b == '\t' || (b == '\n' && newlines == Newlines::kKeep)) return true;
  return b >= 0x20 && b < 0x7f;
}

}  // namespace

std::string printable_text(std::string_view text, Newlines newlines) {
  std::size_t i = 0;
  while (i < text.size() && is_plain(text[i], newlines)) ++i;
  if (i == text.size()) return std::string(text);  // the common case: nothing to escape
  std::string out(text.substr(0, i));
  out.reserve(text.size() + 16);
  while (i < text.size()) {
    const char c = text[i];
    if (is_plain(c, newlines)) {
      out += c;
      ++i;
    } else if (std::size_t n =
                   static_cast<std::uint8_t>(c) >= 0x80 ? utf8_sequence_length(text, i) : 0;
               n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += fmt::format("\\x{:02x}", static_cast<std::uint8_t>(c));
      ++i;
    }
  }
  return out;
}

std::string single_line(std::string_view name) {
  if (name.find('\n') == std::string_view::npos) return std::string(name);
  std::string out;
  out.reserve(name.size() + 8);
  for (char c : name) {
    if (c == '\n') {
      out += "\\x0a";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace symbolite
