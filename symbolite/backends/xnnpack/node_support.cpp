#include "symbolite/backends/xnnpack/node_support.h"

namespace symbolite::backends {
namespace {

std::optional<ops::IValue> static_value(const runtime::CompiledProgram& p, std::size_t id) {
  using K = mobile::DelegateValue::Kind;
  const auto& v = p.program.values[id];
  switch (v.kind) {
    case K::kInput:
    case K::kOpOutput:
      return std::nullopt;
    case K::kList: {
      ops::IValueList items;
      for (auto item : v.items) {
        auto x = static_value(p, item);
        if (!x) return std::nullopt;
        items.push_back(*x);
      }
      return ops::IValue::list(std::move(items));
    }
    default:
      return p.constants[id];
  }
}

}  // namespace

std::optional<ops::IValue> static_arg(const runtime::CompiledProgram& p, std::size_t step,
                                      std::size_t i) {
  const auto& args = p.program.steps[step].args;
  if (i < args.size()) return static_value(p, args[i]);
  const ops::OperatorDef* def = p.operators[step].def;
  std::size_t first_default = def->num_args - def->defaults.size();
  if (i < first_default || i >= def->num_args) return std::nullopt;
  return def->defaults[i - first_default];
}

std::optional<std::vector<std::int64_t>> static_ints(const runtime::CompiledProgram& p,
                                                     std::size_t step, std::size_t i,
                                                     std::size_t n) {
  auto v = static_arg(p, step, i);
  if (!v) return std::nullopt;
  std::vector<std::int64_t> out;
  if (v->is(ops::IValue::Kind::kInt)) {
    out.assign(n, v->to_int());
    return out;
  }
  if (!v->is(ops::IValue::Kind::kList)) return std::nullopt;
  for (const auto& item : v->to_list()) {
    if (!item.is(ops::IValue::Kind::kInt)) return std::nullopt;
    out.push_back(item.to_int());
  }
  if (out.size() == 1) out.assign(n, out[0]);
  if (out.size() != n) return std::nullopt;
  return out;
}

std::optional<double> static_number(const runtime::CompiledProgram& p, std::size_t step,
                                    std::size_t i) {
  auto v = static_arg(p, step, i);
  if (!v || !(v->is(ops::IValue::Kind::kInt) || v->is(ops::IValue::Kind::kDouble)))
    return std::nullopt;
  return v->to_double();
}

std::optional<std::int64_t> pooled_size(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                        std::int64_t padding, std::int64_t dilation) {
  if (stride <= 0) return std::nullopt;
  std::int64_t span = in + 2 * padding - dilation * (kernel - 1) - 1;
  if (span < 0) return std::nullopt;
  return span / stride + 1;
}

}  // namespace symbolite::backends
