// `FunctionSchema`: an operator's signature as PyTorch 1.13 writes it,
//   aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
// parsed into arguments and returns (schema_parser.h) and printed back exactly as PyTorch's
// str(schema) does (`to_string`).
//
// Types are kept as normalized text ("Tensor", "int[]", "Tensor?[]", "Dict(str, t)",
// "(Tensor, t)[]"), not as a type tree: the compiler compares and prints them, it does not
// compute with them. Alias annotations are lifted out of the text into `alias` (on the value)
// and `element_alias` (on a list's elements, `Tensor(a!)[]`), as PyTorch's AliasInfo has them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symbolite/pickle/value.h"

namespace symbolite::ops {

// An alias annotation: `(a)`, `(a!)`, `(a -> *)`, `(b|a)`, `(*)`.
struct AliasAnnotation {
  std::vector<std::string> before_sets;  // "a", "*" (wildcard); in the order written
  std::vector<std::string> after_sets;   // equal to before_sets unless written with `->`
  bool is_write = false;                 // `!`

  // "(a!)", "(a -> *)": PyTorch's rendering.
  std::string to_string() const;
  bool operator==(const AliasAnnotation&) const = default;
};

struct SchemaArgument {
  std::string name;  // "" for an unnamed return
  // Normalized type without alias annotations and without a fixed list size: "Tensor",
  // "int[]" (also for int[2]), "Tensor?", "t[]", "Dict(str, t)", "(Tensor, Tensor?)".
  std::string type;
  std::optional<AliasAnnotation> alias;          // Tensor(a!), t[](a!), Dict(str, t)(a!)
  std::optional<AliasAnnotation> element_alias;  // the elements of a list: Tensor(a!)[]
  std::optional<std::int64_t> list_size;         // int[2] -> 2
  // As PyTorch parses it: int, double, bool, string, None, or a list of one of those
  // (fixed-size list defaults broadcast: `int[2] stride=1` is [1, 1]).
  std::optional<pickle::Value> default_value;
  bool kwarg_only = false;  // after `*`
  bool is_write = false;    // the value (or, for a list, its elements) is written: (a!)
  bool is_out = false;      // PyTorch's Argument::is_out(): kwarg-only and written

  bool is_optional() const { return !type.empty() && type.back() == '?'; }
  // Exactly as PyTorch prints an argument: "int[2] stride=1", "Tensor(a!) out".
  std::string to_string() const;
};

struct FunctionSchema {
  std::string name;      // "aten::add"
  std::string overload;  // "Tensor"; "" when none
  std::vector<SchemaArgument> arguments;
  std::vector<SchemaArgument> returns;
  bool is_vararg = false;  // `...` closes the arguments
  bool is_varret = false;  // `...` closes the returns

  // "aten::add.Tensor", or "aten::relu" without an overload.
  std::string full_name() const;
  // PyTorch 1.13's str(schema), character for character.
  std::string to_string() const;
};

// A default value as PyTorch prints it after `=` for an argument of `arg`'s type.
std::string default_value_string(const SchemaArgument& arg);

}  // namespace symbolite::ops
