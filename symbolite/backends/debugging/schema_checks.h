// The checks of the `eager_debug` delegate backend: each delegate node runs on symbolite's own
// kernel, and what it did is checked against its PyTorch 1.13 schema (ops/schema):
//   - results: as many as the schema returns, each of the kind it declares (a Tensor, an int,
//     a list of Tensors, ...);
//   - mutation: an input tensor the schema does not mark as written (`Tensor(a!)`) keeps its
//     contents;
//   - aliasing: a result the schema says aliases a written input (`-> Tensor(a!)`, the
//     in-place and out= forms) is that input — same storage, same dtype and sizes.
// The first violation fails the node with a message naming the rule, the argument and the
// operator, so that the failure composes into the model's traceback like any delegate failure.
#pragma once

#include <optional>
#include <string>

#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/ops/schema/function_schema.h"
#include "symbolite/runtime/delegate/program_backend.h"

namespace symbolite::backends {

// Runs `kernel` on the top `schema.arguments.size()` values of `stack` (as a kernel would) and
// returns the first violation of `schema`, or nullopt. The stack holds the results either way.
std::optional<std::string> run_and_check(const ops::FunctionSchema& schema, ops::Kernel kernel,
                                         ops::Stack& stack);

// The accelerator factory of `eager_debug`: every step whose operator has a schema is checked.
std::unique_ptr<runtime::StepAccelerator> make_schema_checked_step(
    const runtime::CompiledProgram& program, std::size_t step);

}  // namespace symbolite::backends
