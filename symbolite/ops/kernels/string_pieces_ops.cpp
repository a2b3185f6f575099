// The rest of TorchScript's str methods: partition, rpartition, splitlines, expandtabs,
// isidentifier, isprintable, istitle, and bin / hex / oct of an int. Each is TorchScript's
// own byte-wise version, quirks included (splitlines splits at each byte of its delimiter
// string and keeps a line end as an element of its own; isidentifier allows no underscore),
// since PyTorch's interpreter, not Python, is what models ran under.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/machine_memory.h"

namespace symbolite::ops {
namespace {

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// The three results of (r)partition, pushed one by one as the schema's `(str, str, str)` is.
void push_parts(Stack& s, std::string before, std::string separator, std::string after) {
  s.push_back(IValue::string(std::move(before)));
  s.push_back(IValue::string(std::move(separator)));
  s.push_back(IValue::string(std::move(after)));
}

// partition(self, separator): before the first separator, it, after; not found: (self, "",
// "").
void partition(Stack& s) {
  std::string separator = pop(s).to_string();
  const std::string self = pop(s).to_string();
  std::size_t at = self.find(separator);
  if (at == std::string::npos) {
    at = self.size();
    separator.clear();
  }
  push_parts(s, self.substr(0, at), separator, self.substr(at + separator.size()));
}

// rpartition(self, separator): around the last separator; not found: ("", "", self).
void rpartition(Stack& s) {
  std::string separator = pop(s).to_string();
  const std::string self = pop(s).to_string();
  std::size_t at = self.find(separator);
  for (std::size_t next = at; next != std::string::npos; next = self.find(separator, at + 1)) {
    at = next;
  }
  if (at == std::string::npos) {
    at = 0;
    separator.clear();
  }
  push_parts(s, self.substr(0, at), separator, self.substr(at + separator.size()));
}

// splitlines(self, keepends=False): split at every byte of TorchScript's delimiter string
// ("\n\r\v\f\x1c\x1d\x1e\x85" and the UTF-8 bytes of U+2028 / U+2029), a line end kept as an
// element of its own; no empty last line.
void splitlines(Stack& s) {
  const bool keepends = pop(s).to_bool();
  const std::string self = pop(s).to_string();
  static const std::string kDelimiters = "\n\r\v\f\x1c\x1d\x1e\x85\xe2\x80\xa8\xa9";
  IValueList lines;
  std::size_t start = 0;
  for (std::size_t at = self.find_first_of(kDelimiters); at != std::string::npos;
       at = self.find_first_of(kDelimiters, at + 1)) {
    lines.push_back(IValue::string(self.substr(start, at - start)));
    if (keepends) lines.push_back(IValue::string(self.substr(at, 1)));
    start = at + 1;
  }
  if (start != self.size()) lines.push_back(IValue::string(self.substr(start)));
  s.push_back(IValue::list(std::move(lines)));
}

// expandtabs(self, tabsize=8): each tab becomes spaces up to the next multiple of tabsize
// (counted in bytes); a tabsize of 0 or less drops tabs.
void expandtabs(Stack& s) {
  const std::int64_t tabsize = pop(s).to_int();
  const std::string self = pop(s).to_string();
  std::string out;
  std::int64_t column = 0;
  for (char c : self) {
    if (c != '\t') {
      out += c;
      ++column;
    } else if (tabsize > 0) {
      // To the next multiple of tabsize, at once: a string no memory holds fails first.
      const std::int64_t pad = tabsize - column % tabsize;
      if (!fits_in_memory(out.size() + static_cast<std::uint64_t>(pad))) {
        fail(fmt::format("expandtabs: a tab size of {} makes a string no memory holds", tabsize));
      }
      out.append(static_cast<std::size_t>(pad), ' ');
      column += pad;
    }
  }
  s.push_back(IValue::string(std::move(out)));
}

void isidentifier(Stack& s) {
  const std::string self = pop(s).to_string();
  const bool ok = !self.empty() && std::isdigit(static_cast<unsigned char>(self[0])) == 0 &&
                  std::all_of(self.begin(), self.end(), is_alnum);
  s.emplace_back(ok);
}

void isprintable(Stack& s) {
  const std::string self = pop(s).to_string();
  s.emplace_back(std::all_of(self.begin(), self.end(), [](char c) {
    return is_alnum(c) || std::ispunct(static_cast<unsigned char>(c)) != 0 || c == ' ';
  }));
}

// istitle: every letter after a letter is lower case, every other character upper case (or
// caseless), with at least one letter that starts a word.
void istitle(Stack& s) {
  const std::string self = pop(s).to_string();
  bool result = false, after_letter = false;
  for (char c : self) {
    if (after_letter ? c != lower(c) : c != upper(c)) {
      result = false;
      break;
    }
    if (!after_letter && is_alpha(c)) result = true;
    after_letter = is_alpha(c);
  }
  s.emplace_back(result);
}

// bin / hex / oct: Python's spelling ("-0b101", "0xff", "0o17").
template <int kBase>
void int_in_base(Stack& s) {
  const std::int64_t value = pop(s).to_int();
  // The magnitude as unsigned: the most negative int64 has none as a signed number.
  std::uint64_t magnitude =
      value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  std::string digits;  // lowest first
  do {
    digits += "0123456789abcdef"[magnitude % kBase];
    magnitude /= kBase;
  } while (magnitude != 0);
  std::string text = value < 0 ? "-" : "";
  text += kBase == 2 ? "0b" : kBase == 8 ? "0o" : "0x";
  text.append(digits.rbegin(), digits.rend());
  s.push_back(IValue::string(std::move(text)));
}

}  // namespace

void register_string_pieces_ops(OperatorRegistry& r) {
  r.add({"aten::partition", 2, {}, partition});
  r.add({"aten::rpartition", 2, {}, rpartition});
  r.add({"aten::splitlines", 2, {IValue(false)}, splitlines});
  r.add({"aten::expandtabs", 2, {IValue(std::int64_t{8})}, expandtabs});
  r.add({"aten::isidentifier", 1, {}, isidentifier});
  r.add({"aten::isprintable", 1, {}, isprintable});
  r.add({"aten::istitle", 1, {}, istitle});
  r.add({"aten::bin", 1, {}, int_in_base<2>});
  r.add({"aten::oct", 1, {}, int_in_base<8>});
  r.add({"aten::hex", 1, {}, int_in_base<16>});
}

}  // namespace symbolite::ops
