// Python values <-> the runtime's IValues: numpy arrays (and anything with __array__, such as
// a torch.Tensor) become tensors, Python scalars, strings, None, lists, tuples and dicts become
// their TorchScript counterparts, and results come back the same way (tensors as numpy
// arrays that own a copy of the data).
#pragma once

#include <pybind11/pybind11.h>

#include "symbolite/ops/registry/ivalue.h"

namespace symbolite::python {

ops::IValue to_ivalue(pybind11::handle value);
pybind11::object to_python(const ops::IValue& value);

}  // namespace symbolite::python
