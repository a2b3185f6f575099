// Model inputs from files, as `symbolite run --input` takes them: `.npy` files are tensors;
// `.json` files hold numbers, booleans, strings, null, or lists of them.
#pragma once

#include <string>

#include "symbolite/ops/registry/ivalue.h"

namespace symbolite::runtime {

// Throws Error naming the file (kNotFound, kFormat, kUsage for JSON objects).
ops::IValue read_input_file(const std::string& path);

// The inverse: writes `value` where read_input_file reads it back — `<stem>.npy` for a
// tensor, `<stem>.json` for a number, boolean, string, None or list of them — and returns
// the path. Error(kUnsupported) for what no input file holds (tuples, dicts, objects, lists
// of tensors); Error(kIo) when the file cannot be written.
std::string write_input_file(const std::string& stem, const ops::IValue& value);

}  // namespace symbolite::runtime
