// Equality of constant values as TorchScript compares constants (PyTorch's IValue ==): same
// kind (1 is not 1.0), element-wise for lists and tuples (whatever pickle builder made the
// list), by identity for tensors and objects.
#pragma once

#include "symbolite/pickle/value.h"

namespace symbolite::compiler {

bool constants_equal(const pickle::Value& a, const pickle::Value& b);

}  // namespace symbolite::compiler
