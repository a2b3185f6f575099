#include "symbolite/backends/debugging/schema_checks.h"

#include <fmt/format.h>

#include "symbolite/ops/schema/schema_table.h"
#include "symbolite/support/content_hash.h"
#include "symbolite/support/error.h"

namespace symbolite::backends {
namespace {

using ops::IValue;

Hash128 contents(const tensor::Tensor& t) {
  tensor::Tensor c = t.contiguous();
  ContentHasher hasher;
  hasher.update(std::span<const std::uint8_t>(c.raw_data(), c.nbytes()));
  return hasher.digest();
}

// Whether `v` is of the kind schema type `type` declares; generic types (t, Any) match anything.
bool matches(const IValue& v, const std::string& type) {
  using K = IValue::Kind;
  std::string base = type;
  if (!base.empty() && base.back() == '?') {
    if (v.is_none()) return true;
    base.pop_back();
  }
  if (base == "Tensor") return v.is(K::kTensor);
  if (base == "int" || base == "SymInt") return v.is(K::kInt);
  if (base == "float") return v.is(K::kDouble);
  if (base == "bool") return v.is(K::kBool);
  if (base == "str") return v.is(K::kString);
  if (base == "Scalar") return v.is(K::kInt) || v.is(K::kDouble) || v.is(K::kBool);
  if (base.ends_with("[]")) {
    if (!v.is(K::kList)) return false;
    std::string element = base.substr(0, base.size() - 2);
    for (const auto& item : v.to_list()) {
      if (!matches(item, element)) return false;
    }
    return true;
  }
  return true;  // t, Any, Dict(...), tuples, Device, ...: not checked
}

std::string describe(const IValue& v) {
  if (v.is(IValue::Kind::kTensor)) {
    const auto& t = v.to_tensor();
    return fmt::format("a {} tensor of sizes {}", tensor::torch_name(t.dtype()),
                       tensor::format_sizes(t.sizes()));
  }
  return fmt::format("a {}", v.kind_name());
}

class SchemaCheckedStep final : public runtime::StepAccelerator {
 public:
  SchemaCheckedStep(const ops::FunctionSchema& schema, ops::Kernel kernel)
      : schema_(schema), kernel_(kernel) {}
  bool run(ops::Stack& stack) override {
    if (auto violation = run_and_check(schema_, kernel_, stack)) {
      throw Error(ErrorKind::kModel, fmt::format("eager_debug: {}", *violation));
    }
    return true;
  }

 private:
  const ops::FunctionSchema& schema_;
  ops::Kernel kernel_;
};

}  // namespace

std::optional<std::string> run_and_check(const ops::FunctionSchema& schema, ops::Kernel kernel,
                                         ops::Stack& stack) {
  const std::size_t n = schema.arguments.size();
  const std::size_t below = stack.size() - n;
  std::vector<IValue> inputs(stack.begin() + static_cast<std::ptrdiff_t>(below), stack.end());
  std::vector<std::optional<Hash128>> before(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!schema.arguments[i].is_write && inputs[i].is(IValue::Kind::kTensor))
      before[i] = contents(inputs[i].to_tensor());
  }
  kernel(stack);
  const std::string op = schema.full_name();
  const std::size_t results = stack.size() - below;
  if (!schema.is_varret && results != schema.returns.size()) {
    return fmt::format("{} returned {} values; its schema returns {}", op, results,
                       schema.returns.size());
  }
  for (std::size_t r = 0; r < results && r < schema.returns.size(); ++r) {
    const auto& ret = schema.returns[r];
    const IValue& value = stack[below + r];
    if (!matches(value, ret.type)) {
      return fmt::format("{} returned {} as result {}; its schema returns {}", op, describe(value),
                         r, ret.type);
    }
    if (!ret.alias || !ret.alias->is_write || !value.is(IValue::Kind::kTensor)) continue;
    // `-> Tensor(a!)`: the result is the written argument of set `a`.
    for (std::size_t i = 0; i < n; ++i) {
      const auto& arg = schema.arguments[i];
      if (!arg.alias || arg.alias->before_sets != ret.alias->before_sets ||
          !inputs[i].is(IValue::Kind::kTensor))
        continue;
      const auto& written = inputs[i].to_tensor();
      const auto& got = value.to_tensor();
      if (got.storage().data() != written.storage().data() || got.dtype() != written.dtype() ||
          got.sizes() != written.sizes()) {
        return fmt::format(
            "{} returned {} instead of its argument '{}' ({}), which its schema says it "
            "writes and returns",
            op, describe(value), arg.name, describe(inputs[i]));
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (before[i] && contents(inputs[i].to_tensor()) != *before[i]) {
      return fmt::format("{} changed its argument '{}', which its schema does not mark as written",
                         op, schema.arguments[i].name);
    }
  }
  return std::nullopt;
}

std::unique_ptr<runtime::StepAccelerator> make_schema_checked_step(
    const runtime::CompiledProgram& program, std::size_t step) {
  const auto& op = program.operators[step];
  const ops::FunctionSchema* schema = ops::find_schema(op.name);
  if (schema == nullptr || schema->is_vararg || schema->arguments.size() != op.def->num_args)
    return nullptr;
  return std::make_unique<SchemaCheckedStep>(*schema, op.def->kernel);
}

}  // namespace symbolite::backends
