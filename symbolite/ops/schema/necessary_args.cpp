#include "symbolite/ops/schema/necessary_args.h"

#include <cstring>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::ops {
namespace {

// The part of IValue::is that == lacks, used for container elements as PyTorch does: a double
// identical bit for bit (NaN too), or the same shared node.
bool identical(const pickle::Value& a, const pickle::Value& b) {
  if (a.is(pickle::Value::Kind::kDouble) && b.is(pickle::Value::Kind::kDouble)) {
    double x = a.as_double(), y = b.as_double();
    // Bit for bit on purpose: NaN is identical to itself, -0.0 is not 0.0.
    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  return a.identity() != nullptr && a.identity() == b.identity();
}

bool sequence_equal(const pickle::ValueList& a, const pickle::ValueList& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!identical(a[i], b[i]) && !ivalue_equal(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

bool ivalue_equal(const pickle::Value& a, const pickle::Value& b) {
  using Kind = pickle::Value::Kind;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kNone:
      return true;
    case Kind::kBool:
      return a.as_bool() == b.as_bool();
    case Kind::kInt:
      return a.as_int() == b.as_int();
    case Kind::kDouble:
      return a.as_double() == b.as_double();
    case Kind::kString:
      return a.as_string() == b.as_string();
    case Kind::kList:
      return sequence_equal(a.as_list(), b.as_list());
    case Kind::kTuple:
      return sequence_equal(a.as_tuple(), b.as_tuple());
    case Kind::kDict: {
      const auto& x = a.as_dict();
      const auto& y = b.as_dict();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!ivalue_equal(x[i].first, y[i].first) || !ivalue_equal(x[i].second, y[i].second)) {
          return false;
        }
      }
      return true;
    }
    default:
      return a.identity() != nullptr && a.identity() == b.identity();
  }
}

NecessaryArgs calculate_necessary_args(const FunctionSchema& schema,
                                       std::span<const CallInput> inputs,
                                       bool allow_trailing_out_args) {
  const auto& args = schema.arguments;
  if (args.empty()) return {};
  std::size_t end = args.size();  // one past the last argument still to examine
  if (allow_trailing_out_args) {
    while (end > 0 && args[end - 1].is_out) --end;
  }
  std::size_t num_out = args.size() - end;
  if (args.size() < inputs.size()) return {inputs.size(), num_out};
  if (inputs.size() < args.size()) {
    throw Error(ErrorKind::kUsage,
                fmt::format("{}: a call passes {} inputs, the schema has {} arguments",
                            schema.full_name(), inputs.size(), args.size()));
  }
  if (!allow_trailing_out_args) end = args.size();
  for (; end > 0; --end) {
    const SchemaArgument& arg = args[end - 1];
    const CallInput& input = inputs[end - 1];
    if (!arg.default_value || !input.constant ||
        !ivalue_equal(*arg.default_value, *input.constant)) {
      return {end, num_out};
    }
  }
  return {0, num_out};
}

}  // namespace symbolite::ops
