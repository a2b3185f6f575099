// String operators TorchScript emits for messages and keys: concatenation, comparisons,
// len, indexing and slicing, str(x), case maps and predicates, strip, padding, split, join,
// replace, find/rfind/count, startswith/endswith, ord/chr, float(str) —
// with PyTorch 1.13's semantics (bytes, not code points; its start/end clamping for find and
// startswith; split without a separator splits on runs of whitespace).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "symbolite/ops/common/integer_range.h"
#include "symbolite/ops/common/slice_range.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/machine_memory.h"

namespace symbolite::ops {
namespace {

constexpr std::string_view kWhitespace = " \n\t\f\v";

template <typename Cmp>
void compare(Stack& s) {
  std::string b = pop(s).to_string();
  std::string a = pop(s).to_string();
  s.emplace_back(Cmp{}(a, b));
}

void concat(Stack& s) {
  std::string b = pop(s).to_string();
  std::string a = pop(s).to_string();
  s.push_back(IValue::string(a + b));
}

void length(Stack& s) { s.emplace_back(static_cast<std::int64_t>(pop(s).to_string().size())); }

void char_at(Stack& s) {
  std::int64_t index = pop(s).to_int();
  std::string text = pop(s).to_string();
  const auto size = static_cast<std::int64_t>(text.size());
  std::int64_t i = index < 0 ? index + size : index;
  if (i < 0 || i >= size) throw OpError("IndexError", "string index out of range");
  s.push_back(IValue::string(std::string(1, text[static_cast<std::size_t>(i)])));
}

void to_str(Stack& s) { s.push_back(IValue::string(pop(s).str())); }

template <bool upper>
void change_case(Stack& s) {
  std::string text = pop(s).to_string();
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
    return static_cast<char>(upper ? std::toupper(c) : std::tolower(c));
  });
  s.push_back(IValue::string(std::move(text)));
}

enum class Side { kLeft = 1, kRight = 2, kBoth = 3 };

template <Side side>
void strip(Stack& s) {
  std::string chars = pop(s).to_string();
  std::string text = pop(s).to_string();
  std::size_t begin = 0, end = text.size();
  if (static_cast<int>(side) & static_cast<int>(Side::kLeft)) {
    while (begin < end && chars.find(text[begin]) != std::string::npos) ++begin;
  }
  if (static_cast<int>(side) & static_cast<int>(Side::kRight)) {
    while (end > begin && chars.find(text[end - 1]) != std::string::npos) --end;
  }
  s.push_back(IValue::string(text.substr(begin, end - begin)));
}

void split(Stack& s) {
  std::int64_t max = pop(s).to_int();
  IValue separator = pop(s);
  std::string text = pop(s).to_string();
  IValueList parts;
  if (separator.is_none()) {
    // Runs of whitespace separate; leading and trailing whitespace give no empty parts.
    std::size_t i = text.find_first_not_of(kWhitespace);
    while (i != std::string::npos) {
      std::size_t end = text.find_first_of(kWhitespace, i);
      if (max >= 0 && static_cast<std::int64_t>(parts.size()) == max) end = std::string::npos;
      if (end == std::string::npos) {
        std::size_t last = text.find_last_not_of(kWhitespace);
        parts.push_back(IValue::string(text.substr(i, last + 1 - i)));
        break;
      }
      parts.push_back(IValue::string(text.substr(i, end - i)));
      i = text.find_first_not_of(kWhitespace, end);
    }
  } else {
    const std::string& sep = separator.to_string();
    if (sep.empty()) throw OpError("RuntimeError", "ValueError: empty separator");
    std::size_t start = 0;
    for (;;) {
      std::size_t at = text.find(sep, start);
      if (at == std::string::npos || (max >= 0 && static_cast<std::int64_t>(parts.size()) == max))
        break;
      parts.push_back(IValue::string(text.substr(start, at - start)));
      start = at + sep.size();
    }
    parts.push_back(IValue::string(text.substr(start)));
  }
  s.push_back(IValue::list(std::move(parts)));
}

void join(Stack& s) {
  IValue values = pop(s);
  std::string sep = pop(s).to_string();
  std::string out;
  const auto& items = values.to_list();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i].to_string();
  }
  s.push_back(IValue::string(std::move(out)));
}

void replace(Stack& s) {
  std::int64_t max = pop(s).to_int();
  std::string to = pop(s).to_string();
  std::string from = pop(s).to_string();
  std::string text = pop(s).to_string();
  std::string out;
  std::size_t start = 0;
  std::int64_t done = 0;
  while (max < 0 || done < max) {
    std::size_t at = from.empty() ? std::string::npos : text.find(from, start);
    if (at == std::string::npos) break;
    out += text.substr(start, at - start) + to;
    start = at + from.size();
    ++done;
  }
  s.push_back(IValue::string(out + text.substr(start)));
}

// `text[start:end]` with PyTorch's clamping of negative bounds (end -1 is the end).
std::string window(const std::string& text, std::int64_t start, std::int64_t end) {
  const auto size = static_cast<std::int64_t>(text.size());
  if (start < 0) start = std::max<std::int64_t>(0, start + size);
  if (end < 0) end = std::max<std::int64_t>(0, end + size + 1);
  start = std::min(start, size);
  end = std::min(end, size);
  return end > start
             ? text.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start))
             : "";
}

template <bool at_start>
void affix(Stack& s) {
  std::int64_t end = pop(s).to_int();
  std::int64_t start = pop(s).to_int();
  std::string affix = pop(s).to_string();
  std::string text = window(pop(s).to_string(), start, end);
  bool result = text.size() >= affix.size() &&
                (at_start ? text.compare(0, affix.size(), affix) == 0
                          : text.compare(text.size() - affix.size(), affix.size(), affix) == 0);
  s.emplace_back(result);
}

// find / rfind / index / rindex: the first (last) `sub` in text[start:end], or -1.
std::int64_t find_in(const std::string& text, const std::string& sub, std::int64_t start,
                     std::int64_t end, bool last) {
  const auto size = static_cast<std::int64_t>(text.size());
  std::int64_t from = start < 0 ? std::max<std::int64_t>(0, start + size) : std::min(start, size);
  std::string part = window(text, start, end);
  std::size_t at = last ? part.rfind(sub) : part.find(sub);
  return at == std::string::npos ? std::int64_t{-1} : static_cast<std::int64_t>(at) + from;
}

template <bool last, bool must_find>
void find(Stack& s) {
  std::int64_t end = pop(s).to_int();
  std::int64_t start = pop(s).to_int();
  std::string sub = pop(s).to_string();
  std::string text = pop(s).to_string();
  std::int64_t at = find_in(text, sub, start, end, last);
  if (must_find && at < 0) fail("ValueError: substring not found");
  s.emplace_back(at);
}

// Non-overlapping occurrences of `sub` starting in text[start:end] (PyTorch counts an
// occurrence that starts before `end` even when it runs past it).
void count(Stack& s) {
  std::int64_t end = pop(s).to_int();
  std::int64_t start = pop(s).to_int();
  std::string sub = pop(s).to_string();
  std::string text = pop(s).to_string();
  const auto size = static_cast<std::int64_t>(text.size());
  if (start > size) {
    s.emplace_back(std::int64_t{0});
    return;
  }
  if (start < 0) start = std::max<std::int64_t>(0, size + start);
  if (end < 0) end = std::max<std::int64_t>(0, size + end + 1);
  std::int64_t n = 0;
  // An empty `sub` would never advance (PyTorch loops forever): count Python's way.
  if (sub.empty()) {
    s.emplace_back(std::max<std::int64_t>(0, std::min(end, size) - start + 1));
    return;
  }
  for (std::size_t at = text.find(sub, static_cast<std::size_t>(start));
       at != std::string::npos && static_cast<std::int64_t>(at) < end;
       at = text.find(sub, at + sub.size())) {
    ++n;
  }
  s.emplace_back(n);
}

// text[start:end:step], Python's slice of a string.
void string_slice(Stack& s) {
  std::int64_t step = pop(s).to_int();
  IValue end = pop(s), start = pop(s);
  std::string text = pop(s).to_string();
  SliceRange range = slice_range(static_cast<std::int64_t>(text.size()), start, end, step);
  std::string out;
  for (std::int64_t k = 0, i = range.start; k < range.count; ++k, i += step) {
    out += text[static_cast<std::size_t>(i)];
  }
  s.push_back(IValue::string(std::move(out)));
}

// Character-wise maps and predicates: C locale, byte by byte, as PyTorch's.
template <char (*F)(char)>
void map_chars(Stack& s) {
  std::string text = pop(s).to_string();
  for (char& c : text) c = F(c);
  s.push_back(IValue::string(std::move(text)));
}
char swap_case(char c) {
  const auto u = static_cast<unsigned char>(c);
  return static_cast<char>(std::isupper(u) ? std::tolower(u) : std::toupper(u));
}

// capitalize: the first character upper, the rest lower.
void capitalize(Stack& s) {
  std::string text = pop(s).to_string();
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    text[i] = static_cast<char>(i == 0 ? std::toupper(c) : std::tolower(c));
  }
  s.push_back(IValue::string(std::move(text)));
}

// title: upper after any non-letter ("it's" -> "It'S"), lower after a letter.
void title(Stack& s) {
  std::string text = pop(s).to_string();
  bool after_letter = false;
  for (char& ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    ch = static_cast<char>(after_letter ? std::tolower(c) : std::toupper(c));
    after_letter = std::isalpha(c) != 0;
  }
  s.push_back(IValue::string(std::move(text)));
}

// isdigit, isalpha, ...: every character passes, and there is one (Python: "" is False).
template <int (*F)(int)>
void all_chars(Stack& s) {
  std::string text = pop(s).to_string();
  s.emplace_back(!text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return F(static_cast<unsigned char>(c)) != 0;
  }));
}

// isupper / islower: some letter, and every letter in that case.
template <bool upper>
void letters_in_case(Stack& s) {
  std::string text = pop(s).to_string();
  bool found = false, all = true;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (!std::isalpha(c)) continue;
    found = true;
    all = all && (upper ? std::isupper(c) : std::islower(c));
  }
  s.emplace_back(found && all);
}

// ljust / rjust / center: padded to `width` with one fill character.
// A padded string's width must fit in memory: refused before the padding is made.
void check_string_width(const char* op, std::int64_t width) {
  if (width > 0 && !fits_in_memory(static_cast<std::uint64_t>(width))) {
    fail(
        fmt::format("{}: a string of width {} needs more memory than this machine has", op, width));
  }
}

enum class Pad { kLeft, kRight, kCenter };
template <Pad pad>
void justify(Stack& s) {
  std::string fill = pop(s).to_string();
  std::int64_t width = pop(s).to_int();
  std::string text = pop(s).to_string();
  if (fill.size() != 1) fail("TypeError: The fill character must be exactly one character long");
  const auto size = static_cast<std::int64_t>(text.size());
  if (width <= size) {
    s.push_back(IValue::string(std::move(text)));
    return;
  }
  check_string_width(pad == Pad::kLeft ? "rjust" : pad == Pad::kRight ? "ljust" : "center", width);
  std::size_t total = static_cast<std::size_t>(width - size), left = 0;
  if (pad == Pad::kLeft) left = total;  // rjust: fill on the left
  // center: PyTorch puts the odd fill character on the left when the width is odd.
  if (pad == Pad::kCenter) left = width % 2 ? (total + 1) / 2 : total / 2;
  s.push_back(
      IValue::string(std::string(left, fill[0]) + text + std::string(total - left, fill[0])));
}

// zfill: zeros on the left (PyTorch puts them before a sign too: "-42" -> "000-42").
void zfill(Stack& s) {
  std::int64_t width = pop(s).to_int();
  std::string text = pop(s).to_string();
  const auto size = static_cast<std::int64_t>(text.size());
  check_string_width("zfill", width);
  std::size_t zeros = width > size ? static_cast<std::size_t>(width - size) : 0;
  s.push_back(IValue::string(std::string(zeros, '0') + text));
}

void ord(Stack& s) {
  std::string text = pop(s).to_string();
  if (text.size() != 1)
    fail(fmt::format("String for ord() must be 1 character, found {}", text.size()));
  s.emplace_back(static_cast<std::int64_t>(static_cast<unsigned char>(text[0])));
}

// chr: one byte (PyTorch does not encode code points above 127 as UTF-8).
void chr(Stack& s) {
  std::int64_t i = pop(s).to_int();
  if (i < 0 || i >= 1114111) fail(fmt::format("chr() arg not in range(0x110000), found {}", i));
  s.push_back(IValue::string(std::string(1, static_cast<char>(i))));
}

// list(str): its characters.
void chars(Stack& s) {
  std::string text = pop(s).to_string();
  IValueList out;
  for (char c : text) out.push_back(IValue::string(std::string(1, c)));
  s.push_back(IValue::list(std::move(out)));
}

// float(str): std::stod's syntax (leading whitespace, "inf", "nan"), all of the text used.
void float_from_str(Stack& s) {
  std::string text = pop(s).to_string();
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::out_of_range&) {
    fail("stod");
  } catch (const std::invalid_argument&) {
    fail("stod");
  }
  if (used != text.size()) fail("could not convert string to float: '" + text + "'");
  s.emplace_back(value);
}

// PyTorch's name of a value's tag in formatting errors ("String", "Int", ...).
std::string tag_name(const IValue& v) {
  switch (v.kind()) {
    case IValue::Kind::kNone:
      return "None";
    case IValue::Kind::kBool:
      return "Bool";
    case IValue::Kind::kInt:
      return "Int";
    case IValue::Kind::kDouble:
      return "Double";
    case IValue::Kind::kString:
      return "String";
    case IValue::Kind::kTensor:
      return "Tensor";
    case IValue::Kind::kList:
      return "GenericList";
    case IValue::Kind::kTuple:
      return "Tuple";
    case IValue::Kind::kDict:
      return "GenericDict";
    case IValue::Kind::kObject:
      return "Object";
    case IValue::Kind::kDevice:
      return "Device";
  }
  return "?";
}

// One `%<key>` of percentFormat, as PyTorch's addFormattedArg: %e and %f print the value
// rounded to a C float with 6 digits; %d truncates a float to a C int.
std::string format_arg(char key, const IValue& v) {
  const bool number =
      v.is(IValue::Kind::kInt) || v.is(IValue::Kind::kDouble) || v.is(IValue::Kind::kBool);
  auto need_number = [&] {
    if (!number)
      fail(fmt::format("%{} requires a number for formatting, but got {}", key, tag_name(v)));
  };
  switch (key) {
    case 'd':
    case 'i': {
      need_number();
      if (v.is(IValue::Kind::kInt)) return std::to_string(v.to_int());
      // PyTorch casts unchecked, undefined for NaN, the infinities and past a C int's range.
      const double d = v.to_double();
      if (!fits_integer<int>(d)) {
        fail(fmt::format("aten::percentFormat: %{} of float {} is outside a C int", key, d));
      }
      return std::to_string(static_cast<int>(d));
    }
    case 'e':
    case 'E': {
      need_number();
      std::string out =
          fmt::format("{:.6e}", static_cast<double>(static_cast<float>(v.to_double())));
      if (key == 'E')
        std::transform(out.begin(), out.end(), out.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      return out;
    }
    case 'f':
    case 'F':
      need_number();
      return fmt::format("{:.6f}", static_cast<double>(static_cast<float>(v.to_double())));
    case 'c':
      if (v.is(IValue::Kind::kInt)) return std::string(1, static_cast<char>(v.to_int()));
      if (v.is(IValue::Kind::kString) && v.to_string().size() == 1) return v.to_string();
      fail(fmt::format("%{} requires an int or char for formatting, but got {}", key, tag_name(v)));
    case 's':
      return v.str();
    default:
      fail(fmt::format("The specifier %{} is not supported in TorchScript format strings", key));
  }
}

// `"..." % args` (vararg: the bytecode pushes the format, the argument — a tuple, or one
// value — and their count).
void percent_format(Stack& s) {
  const std::int64_t count = pop(s).to_int();
  // OPN's count is the bytecode's: the format string and its one argument (a tuple for more).
  if (count < 1 || count > 2 || s.size() < static_cast<std::size_t>(count)) {
    throw Error(ErrorKind::kModel,
                fmt::format("aten::percentFormat: called with {} values, expected the format "
                            "string and at most one argument",
                            count));
  }
  const auto num_inputs = static_cast<std::size_t>(count);
  const std::string format = last(s, num_inputs)[0].to_string();
  const IValue args = num_inputs > 1 ? last(s, num_inputs)[1] : IValue();
  drop(s, num_inputs);
  const std::size_t num_args = args.is(IValue::Kind::kTuple) ? args.to_tuple().size() : 1;
  std::string out;
  std::size_t used = 0, begin = 0;
  for (;;) {
    std::size_t at = format.find('%', begin);
    if (at == std::string::npos) {
      out += format.substr(begin);
      break;
    }
    if (at + 1 >= format.size()) fail("Incomplete format specifier");
    out += format.substr(begin, at - begin);
    begin = at + 2;
    if (format[at + 1] == '%') {
      out += '%';
      continue;
    }
    if (used >= num_args) fail("Too few arguments for format string");
    out += format_arg(format[at + 1], args.is(IValue::Kind::kTuple) ? args.to_tuple()[used] : args);
    ++used;
  }
  if (used != num_args) fail("Too many arguments for format string");
  s.push_back(IValue::string(std::move(out)));
}

}  // namespace

void register_string_ops(OperatorRegistry& r) {
  r.add({"aten::add.str", 2, {}, concat});
  r.add({"aten::ne.str", 2, {}, compare<std::not_equal_to<>>});
  r.add({"aten::lt.str", 2, {}, compare<std::less<>>});
  r.add({"aten::le.str", 2, {}, compare<std::less_equal<>>});
  r.add({"aten::gt.str", 2, {}, compare<std::greater<>>});
  r.add({"aten::ge.str", 2, {}, compare<std::greater_equal<>>});
  r.add({"aten::len.str", 1, {}, length});
  r.add({"aten::__getitem__.str", 2, {}, char_at});
  r.add({"aten::str", 1, {}, to_str});
  r.add({"aten::lower", 1, {}, change_case<false>});
  r.add({"aten::upper", 1, {}, change_case<true>});
  const IValue whitespace = IValue::string(std::string(kWhitespace));
  r.add({"aten::strip", 2, {whitespace}, strip<Side::kBoth>});
  r.add({"aten::lstrip", 2, {whitespace}, strip<Side::kLeft>});
  r.add({"aten::rstrip", 2, {whitespace}, strip<Side::kRight>});
  r.add({"aten::split.str", 3, {IValue(), IValue(std::int64_t{-1})}, split});
  r.add({"aten::join", 2, {}, join});
  r.add({"aten::replace", 4, {IValue(std::int64_t{-1})}, replace});
  r.add({"aten::startswith", 4, {IValue(std::int64_t{0}), IValue(std::int64_t{-1})}, affix<true>});
  r.add({"aten::endswith", 4, {IValue(std::int64_t{0}), IValue(std::int64_t{-1})}, affix<false>});
  const IValue zero(std::int64_t{0}), to_end(std::int64_t{-1});
  r.add({"aten::find", 4, {zero, to_end}, find<false, false>});
  r.add({"aten::rfind", 4, {zero, to_end}, find<true, false>});
  r.add({"aten::index.str", 4, {zero, to_end}, find<false, true>});
  r.add({"aten::rindex", 4, {zero, to_end}, find<true, true>});
  r.add({"aten::count", 4, {zero, to_end}, count});
  r.add({"aten::slice.str", 4, {IValue(), IValue(), IValue(std::int64_t{1})}, string_slice});
  r.add({"aten::swapcase", 1, {}, map_chars<swap_case>});
  r.add({"aten::capitalize", 1, {}, capitalize});
  r.add({"aten::title", 1, {}, title});
  r.add({"aten::isdigit", 1, {}, all_chars<std::isdigit>});
  r.add({"aten::isdecimal", 1, {}, all_chars<std::isdigit>});
  r.add({"aten::isnumeric", 1, {}, all_chars<std::isdigit>});
  r.add({"aten::isspace", 1, {}, all_chars<std::isspace>});
  r.add({"aten::isalnum", 1, {}, all_chars<std::isalnum>});
  r.add({"aten::isalpha", 1, {}, all_chars<std::isalpha>});
  r.add({"aten::isupper", 1, {}, letters_in_case<true>});
  r.add({"aten::islower", 1, {}, letters_in_case<false>});
  const IValue space = IValue::string(" ");
  r.add({"aten::ljust", 3, {space}, justify<Pad::kRight>});
  r.add({"aten::rjust", 3, {space}, justify<Pad::kLeft>});
  r.add({"aten::center", 3, {space}, justify<Pad::kCenter>});
  r.add({"aten::zfill", 2, {}, zfill});
  r.add({"aten::ord", 1, {}, ord});
  r.add({"aten::chr", 1, {}, chr});
  r.add({"aten::list", 1, {}, chars});
  r.add({"aten::Float.str", 1, {}, float_from_str});
  r.add({"aten::percentFormat", 0, {}, percent_format});
}

}  // namespace symbolite::ops
