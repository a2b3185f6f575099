// How many arguments a call site must pass: PyTorch 1.13's CalculateNecessaryArgs
// (torch/csrc/jit/runtime/calculate_necessary_args.h), which the mobile code emitter uses to
// write an operator's `num_specified_args` into bytecode.
//
// Trailing arguments whose value is a constant equal (by IValue equality: int 1 is not
// float 1.0, lists element by element) to the schema default are dropped. An input that is
// not a prim::Constant is always necessary; that includes a list built by
// prim::ListConstruct, even of constants (PyTorch's toIValue only reads prim::Constant).
// With `allow_trailing_out_args`, trailing out arguments (PyTorch's is_out: kwarg-only and
// written) are counted apart and defaults are dropped before them.
//
// The emitter records `num_specified_args = args + out_args` (bytecode version >= 7) for each
// operator of a non-vararg schema, the maximum over all its call sites in the function.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "symbolite/ops/schema/function_schema.h"
#include "symbolite/pickle/value.h"

namespace symbolite::ops {

// One actual input of a call site.
struct CallInput {
  std::optional<pickle::Value> constant;  // set when the input is a prim::Constant
  bool is_list_construct = false;         // produced by prim::ListConstruct (not a constant)

  static CallInput of(pickle::Value v) { return CallInput{std::move(v), false}; }
  static CallInput non_constant() { return CallInput{}; }
  static CallInput list_construct() { return CallInput{std::nullopt, true}; }
};

struct NecessaryArgs {
  std::size_t args = 0;      // arguments needed before the out arguments
  std::size_t out_args = 0;  // trailing out arguments
  bool operator==(const NecessaryArgs&) const = default;
};

// Throws Error(kUsage) if `inputs` is shorter than the schema's arguments (a TorchScript call
// node always has every argument).
NecessaryArgs calculate_necessary_args(const FunctionSchema& schema,
                                       std::span<const CallInput> inputs,
                                       bool allow_trailing_out_args = true);

// PyTorch's IValue equality for the values defaults hold: same kind (bool, int and double
// never equal each other), doubles by ==, strings by text, lists and tuples element-wise
// (an element equal to itself bit for bit counts as equal, as IValue::is does).
bool ivalue_equal(const pickle::Value& a, const pickle::Value& b);

}  // namespace symbolite::ops
