// Runs one operator in isolation, for kernel tests: looks it up in the default registry,
// pushes the arguments (and the schema defaults for any left out), calls the kernel and
// returns what it pushed.
//
//   auto out = run_op("aten::add.Tensor", {a, b});          // alpha defaults to 1
//   EXPECT_EQ(out.to_tensor().sizes(), (std::vector<int64_t>{2, 3}));
#pragma once

#include <string_view>
#include <vector>

#include "symbolite/ops/registry/operator_registry.h"

namespace symbolite::ops {

// The single result; Error(kNotFound) if the operator is not registered.
IValue run_op(std::string_view name, std::vector<IValue> args);
// All results, oldest first.
std::vector<IValue> run_op_multi(std::string_view name, std::vector<IValue> args);

}  // namespace symbolite::ops
