#include "symbolite/ops/schema/function_schema.h"

#include <cmath>
#include <cstdio>

namespace symbolite::ops {
namespace {

void append_sets(std::string& out, const std::vector<std::string>& sets) {
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (i > 0) out += '|';
    out += sets[i];
  }
}

// c10::printQuotedString: double quotes, C escapes, other unprintable bytes as \ooo.
void append_quoted(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default: {
        auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) {
          out += c;
        } else {
          out += '\\';
          out += static_cast<char>('0' + (byte >> 6));
          out += static_cast<char>('0' + ((byte >> 3) & 7));
          out += static_cast<char>('0' + (byte & 7));
        }
      }
    }
  }
  out += '"';
}

// IValue's repr of a double: "2." for integral values below 1e10, else 17 significant digits.
void append_double(std::string& out, double d) {
  int c = std::fpclassify(d);
  if ((c == FP_NORMAL || c == FP_ZERO) && std::abs(d) < 1e10) {
    auto i = static_cast<std::int64_t>(d);
    if (static_cast<double>(i) == d) {
      out += std::to_string(i);
      out += '.';
      return;
    }
  }
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", d);
  out += buffer;
}

// IValue's repr (operator<<) of the values a default can hold.
void append_value(std::string& out, const pickle::Value& v) {
  using Kind = pickle::Value::Kind;
  switch (v.kind()) {
    case Kind::kNone:
      out += "None";
      return;
    case Kind::kBool:
      out += v.as_bool() ? "True" : "False";
      return;
    case Kind::kInt:
      out += std::to_string(v.as_int());
      return;
    case Kind::kDouble:
      append_double(out, v.as_double());
      return;
    case Kind::kString:
      out += v.as_string();
      return;
    case Kind::kList:
    case Kind::kTuple: {
      bool list = v.is(Kind::kList);
      out += list ? '[' : '(';
      const auto& items = v.as_sequence();
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ", ";
        append_value(out, items[i]);
      }
      if (!list && items.size() == 1) out += ',';
      out += list ? ']' : ')';
      return;
    }
    default:
      out += v.debug_string();
      return;
  }
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

std::string AliasAnnotation::to_string() const {
  std::string out = "(";
  append_sets(out, before_sets);
  if (is_write) out += '!';
  if (before_sets != after_sets) {
    out += " -> ";
    append_sets(out, after_sets);
  }
  out += ')';
  return out;
}

std::string default_value_string(const SchemaArgument& arg) {
  std::string out;
  if (!arg.default_value) return out;
  const pickle::Value& v = *arg.default_value;
  if ((arg.type == "str" || arg.type == "str?") && v.is(pickle::Value::Kind::kString)) {
    append_quoted(out, v.as_string());
  } else if (arg.type == "int[]" && v.is(pickle::Value::Kind::kList) && v.as_list().size() > 1) {
    // native_functions.yaml writes `int[2] stride=1`; PyTorch prints a list of equal ints so.
    const auto& items = v.as_list();
    bool same = true;
    for (const auto& item : items) {
      same = same && item.is(pickle::Value::Kind::kInt) && items[0].is(pickle::Value::Kind::kInt) &&
             item.as_int() == items[0].as_int();
    }
    append_value(out, same ? items[0] : v);
  } else {
    append_value(out, v);
  }
  return out;
}

std::string SchemaArgument::to_string() const {
  std::string out;
  std::string_view unopt = type;
  bool optional = is_optional();
  if (optional) unopt.remove_suffix(1);
  if (ends_with(unopt, "[]")) {
    unopt.remove_suffix(2);
    out += unopt;
    if (element_alias) out += element_alias->to_string();
    out += '[';
    if (list_size) out += std::to_string(*list_size);
    out += ']';
  } else {
    out += unopt;
  }
  if (alias && !alias->before_sets.empty()) out += alias->to_string();
  if (optional) out += '?';
  if (!name.empty()) {
    out += ' ';
    out += name;
  }
  if (default_value) {
    out += '=';
    out += default_value_string(*this);
  }
  return out;
}

std::string FunctionSchema::full_name() const {
  return overload.empty() ? name : name + "." + overload;
}

std::string FunctionSchema::to_string() const {
  std::string out = full_name();
  out += '(';
  bool seen_kwarg_only = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) out += ", ";
    if (arguments[i].kwarg_only && !seen_kwarg_only) {
      out += "*, ";
      seen_kwarg_only = true;
    }
    out += arguments[i].to_string();
  }
  if (is_vararg) {
    if (!arguments.empty()) out += ", ";
    out += "...";
  }
  out += ") -> ";
  // One return prints bare, unless it starts with '(' (a tuple type), which the parser would
  // read as a list of returns; no returns but `...` prints as a bare `...`.
  bool paren = !((returns.size() == 1 && !is_varret) || (returns.empty() && is_varret));
  std::string single;
  if (returns.size() == 1 && !paren) {
    single = returns[0].to_string();
    if (!single.empty() && single.front() == '(') paren = true;
  }
  if (paren) out += '(';
  for (std::size_t i = 0; i < returns.size(); ++i) {
    if (i > 0) out += ", ";
    out += returns[i].to_string();
  }
  if (is_varret) {
    if (!returns.empty()) out += ", ";
    out += "...";
  }
  if (paren) out += ')';
  return out;
}

}  // namespace symbolite::ops
