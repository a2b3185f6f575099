// Lists and tuples that TorchScript emits as operators rather than instructions:
// aten::list.t (a shallow copy, `list(x)`), aten::eq/ne.int_list (`sizes != [2, 3, 8]`,
// as nn.LSTM's hidden-size check does) and prim::TupleUnpack (`a, b = pair`).
#include "symbolite/ops/registry/kernel_families.h"

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

void tuple_unpack(Stack& s) {
  IValue tuple = pop(s);
  for (const IValue& item : tuple.to_tuple()) s.push_back(item);
}

}  // namespace

void register_list_ops(OperatorRegistry& r) {
  r.add({"aten::list.t", 1, {}, list_copy});
  r.add({"aten::eq.int_list", 2, {}, eq_int_list});
  r.add({"aten::ne.int_list", 2, {}, ne_int_list});
  r.add({"prim::TupleUnpack", 1, {}, tuple_unpack});
}

}  // namespace symbolite::ops
