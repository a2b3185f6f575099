// Model inputs from files, as `symbolite run --input` takes them: `.npy` files are tensors;
// `.json` files hold numbers, booleans, strings, null, or lists of them.
#pragma once

#include <string>

#include "symbolite/ops/registry/ivalue.h"

namespace symbolite::runtime {

// Throws Error naming the file (kNotFound, kFormat, kUsage for JSON objects).
ops::IValue read_input_file(const std::string& path);

}  // namespace symbolite::runtime
