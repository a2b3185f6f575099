#include "symbolite/mobile/bytecode_writer.h"

#include <algorithm>

#include "symbolite/pickle/pickler.h"

namespace symbolite::mobile {
namespace {

using pickle::Value;
using pickle::ValueList;

Value named(std::string_view name, Value value) {
  return Value::tuple({Value::string(name), std::move(value)});
}

Value strings(const std::vector<std::string>& items) {
  ValueList out;
  out.reserve(items.size());
  for (const auto& s : items) out.push_back(Value::string(s));
  return Value::tuple(std::move(out));
}

Value arguments(const std::vector<Argument>& args) {
  ValueList out;
  out.reserve(args.size());
  for (const auto& a : args) {
    out.push_back(
        Value::tuple({named("name", Value::string(a.name)), named("type", Value::string(a.type)),
                      named("default_value", a.default_value)}));
  }
  return Value::tuple(std::move(out));
}

Value function_to_value(const BytecodeFunction& fn) {
  ValueList instructions;
  instructions.reserve(fn.instructions.size());
  for (const auto& ins : fn.instructions) {
    instructions.push_back(Value::tuple({Value::string(std::string(opcode_name(ins.op))),
                                         Value::integer(ins.x), Value::integer(ins.n)}));
  }
  ValueList operators;
  operators.reserve(fn.operators.size());
  for (const auto& op : fn.operators) {
    ValueList t{Value::string(op.name), Value::string(op.overload)};
    if (op.num_specified_args) t.push_back(Value::integer(*op.num_specified_args));
    operators.push_back(Value::tuple(std::move(t)));
  }
  Value code = Value::tuple({
      named("instructions", Value::tuple(std::move(instructions))),
      named("operators", Value::tuple(std::move(operators))),
      named("constants", Value::tuple(fn.constants)),
      named("types", strings(fn.types)),
      named("register_size", Value::integer(fn.register_size)),
  });
  ValueList entry{Value::string(fn.qualified_name), std::move(code)};
  if (!fn.arguments.empty() || !fn.returns.empty()) {
    entry.push_back(Value::tuple(
        {named("arguments", arguments(fn.arguments)), named("returns", arguments(fn.returns))}));
  }
  return Value::tuple(std::move(entry));
}

void collect_tensor_keys(const Value& v, std::vector<std::string>& keys) {
  if (v.is(Value::Kind::kTensor)) keys.push_back(v.as_tensor().storage.key);
  if (v.is(Value::Kind::kStorage)) keys.push_back(v.as_storage().key);
  pickle::any_child(v, [&](const Value& child) {
    collect_tensor_keys(child, keys);
    return false;
  });
}

}  // namespace

pickle::Value bytecode_to_value(const Bytecode& bytecode) {
  ValueList top;
  top.reserve(bytecode.functions.size() + 1);
  top.push_back(Value::integer(bytecode.version));
  for (const auto& fn : bytecode.functions) top.push_back(function_to_value(fn));
  return Value::tuple(std::move(top));
}

std::vector<std::uint8_t> write_bytecode(const Bytecode& bytecode) {
  return pickle::pickle(bytecode_to_value(bytecode));
}

std::vector<std::string> tensor_constant_keys(const Bytecode& bytecode) {
  std::vector<std::string> keys;
  for (const auto& fn : bytecode.functions) {
    for (const auto& c : fn.constants) collect_tensor_keys(c, keys);
    for (const auto& a : fn.arguments) collect_tensor_keys(a.default_value, keys);
    for (const auto& a : fn.returns) collect_tensor_keys(a.default_value, keys);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace symbolite::mobile
