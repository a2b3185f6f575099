// Python list methods and the builtins over lists (extend, insert, pop, remove, index, count,
// sort, sorted, reverse, clear, del, min/max/sum), for the element types PyTorch 1.13
// overloads them on (int, float, bool, str; the generic `.t` ones for any element). Lists are
// shared by reference (ivalue.h): the in-place methods mutate the list every alias sees.
// Elements compare with C++'s == and < as PyTorch's templates do, so NaN is never found and
// sorts wherever std::sort leaves it.
#include <algorithm>
#include <cstdint>
#include <new>

#include <fmt/format.h>

#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/machine_memory.h"

namespace symbolite::ops {
namespace {

// a < b for two elements of one list type (int, float, bool or str).
bool less(const IValue& a, const IValue& b) {
  switch (a.kind()) {
    case IValue::Kind::kString:
      return a.to_string() < b.to_string();
    case IValue::Kind::kBool:
      return a.to_bool() < b.to_bool();
    case IValue::Kind::kInt:
      return a.to_int() < b.to_int();
    default:
      return a.to_double() < b.to_double();
  }
}

// An element as C++'s ostream prints it in PyTorch's messages: 1e+20, 0.1, 3 (a whole float
// without its point), booleans as 1 and 0.
std::string stream_text(const IValue& v) {
  switch (v.kind()) {
    case IValue::Kind::kString:
      return v.to_string();
    case IValue::Kind::kBool:
      return v.to_bool() ? "1" : "0";
    case IValue::Kind::kInt:
      return std::to_string(v.to_int());
    default:
      return fmt::format("{:g}", v.to_double());
  }
}

IValueList::iterator find(IValueList& items, const IValue& el) {
  return std::find_if(items.begin(), items.end(),
                      [&](const IValue& x) { return equal_scalars(x, el); });
}

void extend(Stack& s) {
  IValue other = pop(s);
  IValue list = pop(s);
  const IValueList added = other.to_list();  // `a.extend(a)` reads what it grows
  list.to_list().insert(list.to_list().end(), added.begin(), added.end());
}

// insert(i, x): a negative index counts from the end; past either end inserts at that end.
void insert(Stack& s) {
  IValue el = pop(s);
  std::int64_t idx = pop(s).to_int();
  IValue list = pop(s);
  IValueList& items = list.to_list();
  const auto n = static_cast<std::int64_t>(items.size());
  std::int64_t i = std::clamp<std::int64_t>(idx < 0 ? idx + n : idx, 0, n);
  items.insert(items.begin() + i, std::move(el));
}

// The element at `idx` removed from `items` (PyTorch's listPopImpl: `empty` on an empty list).
IValue take(IValueList& items, std::int64_t idx, const char* empty) {
  const auto n = static_cast<std::int64_t>(items.size());
  if (n == 0) fail(empty);
  std::int64_t i = idx < 0 ? idx + n : idx;
  if (i < 0 || i >= n) throw OpError("IndexError", "list index out of range");
  IValue out = items[static_cast<std::size_t>(i)];
  items.erase(items.begin() + i);
  return out;
}

void pop_at(Stack& s) {
  std::int64_t idx = pop(s).to_int();
  IValue list = pop(s);
  s.push_back(take(list.to_list(), idx, "pop from empty list"));
}

void delete_at(Stack& s) {
  std::int64_t idx = pop(s).to_int();
  IValue list = pop(s);
  take(list.to_list(), idx, "pop index out of range");
}

void list_clear(Stack& s) { pop(s).to_list().clear(); }

void reverse(Stack& s) {
  IValue list = pop(s);
  std::reverse(list.to_list().begin(), list.to_list().end());
}

void remove(Stack& s) {
  IValue el = pop(s);
  IValue list = pop(s);
  auto at = find(list.to_list(), el);
  if (at == list.to_list().end()) fail("list.remove(x): x not in list");
  list.to_list().erase(at);
}

void index(Stack& s) {
  IValue el = pop(s);
  IValue list = pop(s);
  auto at = find(list.to_list(), el);
  if (at == list.to_list().end()) fail("'" + stream_text(el) + "' is not in list");
  s.emplace_back(static_cast<std::int64_t>(at - list.to_list().begin()));
}

void list_count(Stack& s) {
  IValue el = pop(s);
  IValue list = pop(s);
  const auto& items = list.to_list();
  s.emplace_back(static_cast<std::int64_t>(std::count_if(
      items.begin(), items.end(), [&](const IValue& x) { return equal_scalars(x, el); })));
}

// PyTorch's comparator, kept as is: NaN's place in the result is std::sort's.
void sort_items(IValueList& items, bool reverse) {
  std::sort(items.begin(), items.end(), [reverse](const IValue& a, const IValue& b) {
    if (equal_scalars(a, b)) return false;
    return less(a, b) != reverse;
  });
}

void list_sort(Stack& s) {
  bool reverse = pop(s).to_bool();
  IValue list = pop(s);
  sort_items(list.to_list(), reverse);
}

void sorted(Stack& s) {
  IValue list = pop(s);
  IValueList copy = list.to_list();
  sort_items(copy, false);
  s.push_back(IValue::list(std::move(copy)));
}

void sum_float(Stack& s) {
  IValue list = pop(s);
  double sum = 0.0;
  for (const auto& v : list.to_list()) sum += v.to_double();
  s.emplace_back(sum);
}

void sum_bool(Stack& s) {
  IValue list = pop(s);
  std::int64_t sum = 0;
  for (const auto& v : list.to_list()) sum += v.to_bool() ? 1 : 0;
  s.emplace_back(sum);
}

// min(l) / max(l): `x < best` keeps the first of equals, and a NaN only when it comes first.
template <bool is_min>
void extreme(Stack& s) {
  IValue list = pop(s);
  const auto& items = list.to_list();
  if (items.empty())
    fail(is_min ? "min() arg is an empty sequence" : "max() arg is an empty sequence");
  IValue best = items[0];
  for (std::size_t i = 1; i < items.size(); ++i) {
    if (is_min ? less(items[i], best) : less(best, items[i])) best = items[i];
  }
  s.push_back(best);
}

// min(l, r) / max(l, r) of two lists, compared lexicographically; the result is one of them
// (not a copy). PyTorch's minList/maxList compare r's element against l's.
template <bool is_min>
void extreme_list(Stack& s) {
  IValue r = pop(s);
  IValue l = pop(s);
  const auto& a = r.to_list();
  const auto& b = l.to_list();
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (equal_scalars(a[i], b[i])) continue;
    bool pick_r = is_min ? less(a[i], b[i]) : less(b[i], a[i]);
    s.push_back(pick_r ? r : l);
    return;
  }
  s.push_back((is_min ? b.size() < a.size() : b.size() > a.size()) ? l : r);
}

template <bool equal>
void lists_equal(Stack& s) {
  IValue r = pop(s);
  IValue l = pop(s);
  const auto& a = l.to_list();
  const auto& b = r.to_list();
  bool same = a.size() == b.size() &&
              std::equal(a.begin(), a.end(), b.begin(),
                         [](const IValue& x, const IValue& y) { return equal_scalars(x, y); });
  s.emplace_back(same == equal);
}

// a += b: a extended in place, and returned.
void add_in_place(Stack& s) {
  IValue other = pop(s);
  IValue list = pop(s);
  const IValueList added = other.to_list();
  list.to_list().insert(list.to_list().end(), added.begin(), added.end());
  s.push_back(std::move(list));
}

// `list` repeated n times, as Python's list * n (empty for n <= 0, where PyTorch 1.13's
// interpreter fails with "vector::reserve"), in one allocation: a length the machine cannot
// hold fails at once (std::bad_alloc, the operator's error) instead of the list growing until
// the process is out of memory.
IValue repeated(const IValue& list, std::int64_t n) {
  const IValueList& items = list.to_list();
  IValueList out;
  if (n > 0 && !items.empty()) {
    std::size_t total = 0;
    if (__builtin_mul_overflow(items.size(), static_cast<std::uint64_t>(n), &total) ||
        !fits_in_memory(total, sizeof(IValue))) {
      throw std::bad_alloc();
    }
    out.reserve(total);
    for (std::int64_t i = 0; i < n; ++i) out.insert(out.end(), items.begin(), items.end());
  }
  return IValue::list(std::move(out));
}

// l * n.
void repeat_left(Stack& s) {
  const std::int64_t n = pop(s).to_int();
  IValue list = pop(s);
  s.push_back(repeated(list, n));
}

// n * l.
void repeat_right(Stack& s) {
  IValue list = pop(s);
  const std::int64_t n = pop(s).to_int();
  s.push_back(repeated(list, n));
}

}  // namespace

void register_list_methods_ops(OperatorRegistry& r) {
  r.add({"aten::extend.t", 2, {}, extend});
  r.add({"aten::insert.t", 3, {}, insert});
  r.add({"aten::pop.t", 2, {IValue(std::int64_t{-1})}, pop_at});
  r.add({"aten::Delete.t", 2, {}, delete_at});
  r.add({"aten::clear.t", 1, {}, list_clear});
  r.add({"aten::reverse.t", 1, {}, reverse});
  r.add({"aten::add_.t", 2, {}, add_in_place});
  r.add({"aten::mul.left_t", 2, {}, repeat_left});
  r.add({"aten::mul.right_", 2, {}, repeat_right});
  for (const char* type : {"int", "float", "bool", "str"}) {
    const std::string t = type;
    r.add({"aten::remove." + t, 2, {}, remove});
    r.add({"aten::index.list_" + t, 2, {}, index});
    r.add({"aten::count." + t, 2, {}, list_count});
    r.add({"aten::sort." + t, 2, {IValue(false)}, list_sort});
    r.add({"aten::sorted." + t, 1, {}, sorted});
  }
  for (const char* type : {"float", "str", "bool"}) {
    const std::string t = type;
    r.add({"aten::eq." + t + "_list", 2, {}, lists_equal<true>});
    r.add({"aten::ne." + t + "_list", 2, {}, lists_equal<false>});
  }
  for (const char* type : {"int", "float", "bool"}) {
    const std::string t = type;
    r.add({"prim::min.self_" + t, 1, {}, extreme<true>});
    r.add({"prim::max.self_" + t, 1, {}, extreme<false>});
    r.add({"prim::min." + t + "_list", 2, {}, extreme_list<true>});
    r.add({"prim::max." + t + "_list", 2, {}, extreme_list<false>});
  }
  r.add({"aten::sum.float", 1, {}, sum_float});
  r.add({"aten::sum.bool", 1, {}, sum_bool});
}

}  // namespace symbolite::ops
