// Lists and tuples that TorchScript emits as operators rather than instructions:
// aten::list.t / copy.t (a shallow copy, `list(x)`), slice.t (`l[1:-1]`), _set_item.t
// (`l[i] = x`), sum.int, aten::eq/ne.int_list (`sizes != [2, 3, 8]`, as nn.LSTM's
// hidden-size check does) and prim::TupleUnpack (`a, b = pair`).
#include <algorithm>

#include "symbolite/ops/common/slice_range.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

void list_copy(Stack& s) {
  IValue list = pop(s);
  s.push_back(IValue::list(list.to_list()));
}

bool int_lists_equal(const IValue& a, const IValue& b) {
  const IValueList& x = a.to_list();
  const IValueList& y = b.to_list();
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i].to_int() != y[i].to_int()) return false;
  }
  return true;
}

void eq_int_list(Stack& s) {
  IValue b = pop(s), a = pop(s);
  s.emplace_back(int_lists_equal(a, b));
}
void ne_int_list(Stack& s) {
  IValue b = pop(s), a = pop(s);
  s.emplace_back(!int_lists_equal(a, b));
}

// Python's slice of a list: l[start:end:step], negative bounds from the end, clamped.
void list_slice(Stack& s) {
  std::int64_t step = pop(s).to_int();
  IValue end_v = pop(s), start_v = pop(s), list = pop(s);
  const IValueList& items = list.to_list();
  SliceRange range = slice_range(static_cast<std::int64_t>(items.size()), start_v, end_v, step);
  IValueList out;
  for (std::int64_t k = 0, i = range.start; k < range.count; ++k, i += step) {
    out.push_back(items[static_cast<std::size_t>(i)]);
  }
  s.push_back(IValue::list(std::move(out)));
}

// l[idx] = el, in place; returns the list.
void list_set_item(Stack& s) {
  IValue el = pop(s);
  std::int64_t idx = pop(s).to_int();
  IValue list = pop(s);
  IValueList& items = list.to_list();
  const auto n = static_cast<std::int64_t>(items.size());
  std::int64_t i = idx < 0 ? idx + n : idx;
  if (i < 0 || i >= n) throw OpError("IndexError", "list index out of range");
  items[static_cast<std::size_t>(i)] = el;
  s.push_back(list);
}

void int_list_sum(Stack& s) {
  IValue list = pop(s);  // alive for the loop: the popped value may own the list
  std::int64_t sum = 0;
  for (const auto& v : list.to_list()) sum += v.to_int();
  s.emplace_back(sum);
}

void tuple_unpack(Stack& s) {
  IValue tuple = pop(s);
  for (const IValue& item : tuple.to_tuple()) s.push_back(item);
}

}  // namespace

void register_list_ops(OperatorRegistry& r) {
  r.add({"aten::list.t", 1, {}, list_copy});
  r.add({"aten::copy.t", 1, {}, list_copy});
  r.add({"aten::slice.t", 4, {IValue(), IValue(), IValue(std::int64_t{1})}, list_slice});
  r.add({"aten::_set_item.t", 3, {}, list_set_item});
  r.add({"aten::sum.int", 1, {}, int_list_sum});
  r.add({"aten::eq.int_list", 2, {}, eq_int_list});
  r.add({"aten::ne.int_list", 2, {}, ne_int_list});
  r.add({"prim::TupleUnpack", 1, {}, tuple_unpack});
}

}  // namespace symbolite::ops
