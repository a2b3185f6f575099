// The kernel of an operator the registry lacks. A model that names one still loads
// (mobile/loaded_model.h): scripted library code carries branches a run never takes
// (`F.normalize`'s `out=` call, `torch.norm`'s nuclear norms), and refusing the model for those
// would refuse models that run. A run that reaches one fails there, with the traceback of
// the call, as PyTorch fails for any error.
#pragma once

#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/support/error.h"

namespace symbolite::ops {

// What missing_operator_kernel throws; the interpreter, which knows the instruction, names the
// operator (missing_operator_message).
class MissingOperatorCalled : public Error {
 public:
  MissingOperatorCalled();
};

[[noreturn]] void missing_operator_kernel(Stack& stack);

// "aten::fft_rfft is not implemented by symbolite" (`symbolite operators` lists what is).
std::string missing_operator_message(std::string_view name);

}  // namespace symbolite::ops
