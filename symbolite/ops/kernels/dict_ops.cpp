// Dict operators TorchScript emits as calls (`d.keys()`, `d[k] = v`, `d.pop(k, default)`,
// `k in d`, ...), one kernel per operation registered for every key type PyTorch overloads
// them for (str, int, bool, float, Tensor). Insertion order is kept, as Python's dicts keep
// it. Missing keys fail as PyTorch's lite interpreter does: RuntimeError "KeyError: <key>".
#include <fmt/format.h>

#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

[[noreturn]] void key_error(const IValue& key) {
  throw OpError("RuntimeError", "KeyError: " + key.str());
}

// Index of `key` in `dict`, or KeyError.
std::size_t index_of(const Dict& dict, const IValue& key) {
  auto at = dict.find(key);
  if (at < 0) key_error(key);
  return static_cast<std::size_t>(at);
}

// d[key] = value: replaced in place, or appended (insertion order).
void put(Dict& dict, const IValue& key, const IValue& value) {
  auto at = dict.find(key);
  if (at < 0) {
    dict.items.emplace_back(key, value);
  } else {
    dict.items[static_cast<std::size_t>(at)].second = value;
  }
}

void keys(Stack& s) {
  IValue d = pop(s);
  IValueList out;
  for (const auto& [k, v] : d.to_dict().items) out.push_back(k);
  s.push_back(IValue::list(std::move(out)));
}

void values(Stack& s) {
  IValue d = pop(s);
  IValueList out;
  for (const auto& [k, v] : d.to_dict().items) out.push_back(v);
  s.push_back(IValue::list(std::move(out)));
}

void items(Stack& s) {
  IValue d = pop(s);
  IValueList out;
  for (const auto& [k, v] : d.to_dict().items) out.push_back(IValue::tuple({k, v}));
  s.push_back(IValue::list(std::move(out)));
}

void len(Stack& s) { s.emplace_back(static_cast<std::int64_t>(pop(s).to_dict().items.size())); }

void contains(Stack& s) {
  IValue key = pop(s);
  IValue d = pop(s);
  s.emplace_back(d.to_dict().find(key) >= 0);
}

void getitem(Stack& s) {
  IValue key = pop(s);
  IValue d = pop(s);
  s.push_back(d.to_dict().items[index_of(d.to_dict(), key)].second);
}

void get(Stack& s) {
  IValue key = pop(s);
  IValue d = pop(s);
  auto at = d.to_dict().find(key);
  s.push_back(at < 0 ? IValue() : d.to_dict().items[static_cast<std::size_t>(at)].second);
}

void get_default(Stack& s) {
  IValue fallback = pop(s);
  IValue key = pop(s);
  IValue d = pop(s);
  auto at = d.to_dict().find(key);
  s.push_back(at < 0 ? fallback : d.to_dict().items[static_cast<std::size_t>(at)].second);
}

void setdefault(Stack& s) {
  IValue fallback = pop(s);
  IValue key = pop(s);
  IValue d = pop(s);
  Dict& dict = d.to_dict();
  auto at = dict.find(key);
  if (at < 0) {
    dict.items.emplace_back(key, fallback);
    s.push_back(fallback);
  } else {
    s.push_back(dict.items[static_cast<std::size_t>(at)].second);
  }
}

void set_item(Stack& s) {
  IValue value = pop(s);
  IValue key = pop(s);
  IValue d = pop(s);
  put(d.to_dict(), key, value);
}

void pop_key(Stack& s) {
  IValue key = pop(s);
  IValue d = pop(s);
  Dict& dict = d.to_dict();
  std::size_t i = index_of(dict, key);
  s.push_back(dict.items[i].second);
  dict.items.erase(dict.items.begin() + static_cast<std::ptrdiff_t>(i));
}

void pop_default(Stack& s) {
  IValue fallback = pop(s);
  IValue key = pop(s);
  IValue d = pop(s);
  Dict& dict = d.to_dict();
  auto at = dict.find(key);
  if (at < 0) {
    s.push_back(fallback);
    return;
  }
  s.push_back(dict.items[static_cast<std::size_t>(at)].second);
  dict.items.erase(dict.items.begin() + at);
}

void popitem(Stack& s) {
  IValue d = pop(s);
  Dict& dict = d.to_dict();
  if (dict.items.empty()) throw OpError("RuntimeError", "popitem(): dictionary is empty");
  auto [k, v] = dict.items.back();
  dict.items.pop_back();
  s.push_back(IValue::tuple({k, v}));
}

void delete_key(Stack& s) {
  IValue key = pop(s);
  IValue d = pop(s);
  Dict& dict = d.to_dict();
  dict.items.erase(dict.items.begin() + static_cast<std::ptrdiff_t>(index_of(dict, key)));
}

void clear(Stack& s) { pop(s).to_dict().items.clear(); }

void copy(Stack& s) {
  IValue d = pop(s);
  s.push_back(IValue::dict(std::make_shared<Dict>(d.to_dict())));
}

void update(Stack& s) {
  IValue from = pop(s);
  IValue d = pop(s);
  Dict& dict = d.to_dict();
  const auto added = from.to_dict().items;  // `d.update(d)` reads what it writes
  for (const auto& [k, v] : added) put(dict, k, v);
}

}  // namespace

void register_dict_ops(OperatorRegistry& r) {
  for (const char* key_type : {"str", "int", "bool", "float", "Tensor"}) {
    const std::string k = key_type;
    r.add({"aten::keys." + k, 1, {}, keys});
    r.add({"aten::values." + k, 1, {}, values});
    r.add({"aten::items." + k, 1, {}, items});
    r.add({"aten::len.Dict_" + k, 1, {}, len});
    r.add({"aten::__contains__." + k, 2, {}, contains});
    r.add({"aten::__getitem__.Dict_" + k, 2, {}, getitem});
    r.add({"aten::get." + k, 2, {}, get});
    r.add({"aten::get.default_" + k, 3, {}, get_default});
    r.add({"aten::setdefault." + k, 3, {}, setdefault});
    r.add({"aten::_set_item." + k, 3, {}, set_item});
    r.add({"aten::pop.Dict_" + k, 2, {}, pop_key});
    r.add({"aten::pop.Dict_default_" + k, 3, {}, pop_default});
    r.add({"aten::popitem." + k, 1, {}, popitem});
    r.add({"aten::Delete.Dict_" + k, 2, {}, delete_key});
    r.add({"aten::clear." + k, 1, {}, clear});
    r.add({"aten::copy.Dict_" + k, 1, {}, copy});
    r.add({"aten::dict.Dict_" + k, 1, {}, copy});
    r.add({"aten::update." + k, 2, {}, update});
  }
}

}  // namespace symbolite::ops
