// The delegate program: what symbolite's lowering writes as a to_backend method's processed
// payload, and what its delegate backends (symbolite's runtime, and libsymbolite_torch.so
// inside PyTorch) compile and execute. One text per lowered method, line-based so that a
// person can read it in `symbolite inspect` (format in docs/FORMATS.md):
//
//   symbolite-delegate-program 1
//   input                                  value 0
//   weight 0                               value 1 = the method's weights[0]
//   int 1 | float 0x1p+1 | bool 1 | none | str 3:abc | list 2 3
//   op 7 aten::add.Tensor 3 0 1 2 -> 1     handle 7, operator, arguments, one output
//   output 4
//
// Every line but `op` and `output` defines the next value; an `op` defines its outputs. An
// operator may get fewer arguments than its schema has (the rest take the defaults). The
// debug handle of each op is the key of its row in the model's call-stack map: a failure or a
// profile event of that op symbolicates to the source line and module it came from.
//
// Parsing checks everything (versions, value ids, counts, sizes) and names the line at fault:
// the payload comes from a file and may be hostile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace symbolite::mobile {

constexpr std::string_view kDelegateProgramMagic = "symbolite-delegate-program";
constexpr int kDelegateProgramVersion = 1;

struct DelegateValue {
  enum class Kind { kInput, kWeight, kInt, kFloat, kBool, kNone, kString, kList, kOpOutput };
  Kind kind = Kind::kNone;
  std::int64_t integer = 0;        // kInt, kBool, kWeight (index), kInput (index)
  double number = 0;               // kFloat
  std::string text;                // kString
  std::vector<std::size_t> items;  // kList: value ids
};

struct DelegateStep {
  std::int64_t handle = -1;          // debug handle; -1 when the model has no debug info
  std::string op;                    // "aten::add.Tensor", "aten::relu"
  std::vector<std::size_t> args;     // value ids
  std::vector<std::size_t> outputs;  // value ids this step defines
  std::size_t values_before = 0;     // how many values were defined before it (its place)
};

struct DelegateProgram {
  std::vector<DelegateValue> values;  // by id
  std::vector<DelegateStep> steps;    // in execution order
  std::vector<std::size_t> outputs;   // value ids
  std::size_t num_inputs = 0;
  std::size_t num_weights = 0;  // 1 + the highest weight index used

  // Builders, each returning the new value's id.
  std::size_t add_input();
  std::size_t add_value(DelegateValue value);
  // Adds a step and defines `num_outputs` values for it; returns the first output's id.
  std::size_t add_step(std::int64_t handle, std::string op, std::vector<std::size_t> args,
                       std::size_t num_outputs);
};

// The text above. Equal programs give equal texts.
std::string print_delegate_program(const DelegateProgram& program);

// Parses and checks a payload; Error(kModel) naming the line for anything malformed.
DelegateProgram parse_delegate_program(std::string_view text);

}  // namespace symbolite::mobile
