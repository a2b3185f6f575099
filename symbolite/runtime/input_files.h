// Model inputs and results as files, as `symbolite run --input` takes them and `--output-dir`
// writes them (docs/CLI.md, "Values as files"):
//   - `.npy`: a tensor (C or Fortran order; Fortran order keeps its strides);
//   - `.json`: any other value. Numbers, booleans, strings, null and lists are themselves; a
//     JSON object is a Dict[str, V]; an object whose only key is one of these is special:
//       {"$tensor": "x.npy"}        a tensor from that file (relative to the JSON file)
//       {"$tuple": [v, ...]}        a tuple
//       {"$dict": [[k, v], ...]}    a dict whose keys are not strings
//       {"$float": "nan"}           nan, inf or -inf
//     so `{"image": {"$tensor": "x.npy"}, "sizes": {"$tuple": [3, 4]}}` is a
//     Dict[str, Any] of a tensor and a tuple.
// Results are written in the same form (result.json, tensors as output_<i>.npy in the order
// result_tensors gives), so a result can be given back as an input.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/support/output_files.h"

namespace symbolite::runtime {

// Throws Error naming the file (and, in JSON, where in it: `x.json: at [1]["a"]: ...`):
// kNotFound, kIo, kFormat (also for a value the format does not allow), kLimit.
ops::IValue read_input_file(const std::string& path);

// The value of the JSON `text` of an input file at `path` ($tensor paths are relative to its
// folder). Error(kFormat) for malformed JSON and, naming the place, for a value the format
// does not allow (an integer past int64 included: never silently a double); nesting deeper
// than kMaxInputDepth is Error(kLimit).
ops::IValue parse_input_json(std::string_view text, const std::string& path);
inline constexpr int kMaxInputDepth = 64;

// The inverse for one input: writes `value` where read_input_file reads it back —
// `<stem>.npy` for a tensor, else `<stem>.json` with its tensors in `<stem>_<i>.npy` — and
// returns the path. Error(kUnsupported) for objects and devices; Error(kIo) when a file
// cannot be written.
std::string write_input_file(const std::string& stem, const ops::IValue& value);

// Stages `result`'s tensors in `files` as `dir`/output_<i>.npy (result_tensors order;
// nothing is staged without `files`) and returns the JSON of the whole structure, whose
// tensors refer to those files ({"$tensor": "output_0.npy"}, relative to `dir`). Objects and
// devices become {"$repr": "..."}. The caller commits the batch (support/output_files.h).
nlohmann::ordered_json write_result_files(const ops::IValue& result, const std::string& dir,
                                          OutputFiles* files);

}  // namespace symbolite::runtime
