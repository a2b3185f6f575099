#include "symbolite/compiler/constant_equality.h"

#include <cmath>

namespace symbolite::compiler {
namespace {

bool sequences_equal(const pickle::ValueList& a, const pickle::ValueList& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!constants_equal(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

bool constants_equal(const pickle::Value& a, const pickle::Value& b) {
  using Kind = pickle::Value::Kind;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kNone: return true;
    case Kind::kBool: return a.as_bool() == b.as_bool();
    case Kind::kInt: return a.as_int() == b.as_int();
    // Bitwise, so that NaN constants (and -0.0 vs 0.0) are told apart as PyTorch's constant
    // pooling does.
    case Kind::kDouble: {
      double x = a.as_double(), y = b.as_double();
      return x == y ? std::signbit(x) == std::signbit(y) : (std::isnan(x) && std::isnan(y));
    }
    case Kind::kString: return a.as_string() == b.as_string();
    case Kind::kTuple: return sequences_equal(a.as_tuple(), b.as_tuple());
    case Kind::kList:
      return sequences_equal(a.as_list(), b.as_list());
    default: return a.identity() != nullptr && a.identity() == b.identity();
  }
}

}  // namespace symbolite::compiler
