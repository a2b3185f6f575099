// String operators TorchScript emits for messages and keys: concatenation, comparisons,
// len, indexing, str(x), case, strip, split, join, replace, find and startswith/endswith —
// with PyTorch 1.13's semantics (bytes, not code points; its start/end clamping for find and
// startswith; split without a separator splits on runs of whitespace).
#include <algorithm>
#include <cctype>
#include <functional>

#include <fmt/format.h>

#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

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
    const std::string sep = separator.to_string();
    if (sep.empty()) throw OpError("RuntimeError", "ValueError: empty separator");
    std::size_t start = 0;
    for (;;) {
      std::size_t at = text.find(sep, start);
      if (at == std::string::npos || (max >= 0 && static_cast<std::int64_t>(parts.size()) == max)) break;
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
  return end > start ? text.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start)) : "";
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

void find(Stack& s) {
  std::int64_t end = pop(s).to_int();
  std::int64_t start = pop(s).to_int();
  std::string sub = pop(s).to_string();
  std::string text = pop(s).to_string();
  const auto size = static_cast<std::int64_t>(text.size());
  std::int64_t from = start < 0 ? std::max<std::int64_t>(0, start + size) : std::min(start, size);
  std::string part = window(text, start, end);
  std::size_t at = part.find(sub);
  s.emplace_back(at == std::string::npos ? std::int64_t{-1} : static_cast<std::int64_t>(at) + from);
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
  r.add({"aten::find", 4, {IValue(std::int64_t{0}), IValue(std::int64_t{-1})}, find});
}

}  // namespace symbolite::ops
