// The tensors of a method's result, in the order `symbolite run` writes them as
// output_0.npy, output_1.npy, ... (docs/CLI.md): a tensor is one output; tuples and lists are
// walked in order, nested ones too, and dicts in insertion order, each key before its value;
// other values (ints, strings, None) are left out (result.json holds them, input_files.h).
#pragma once

#include <vector>

#include "symbolite/ops/registry/ivalue.h"

namespace symbolite::runtime {

std::vector<tensor::Tensor> result_tensors(const ops::IValue& result);

}  // namespace symbolite::runtime
