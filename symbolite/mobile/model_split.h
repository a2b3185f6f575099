// Splitting a model into a stripped model and a sidecar (`symbolite split`): the stripped
// model keeps everything a runtime needs, including the per-instruction debug handle table
// (so failures still report handles), and drops serialized code, source ranges and call
// stacks; the sidecar keeps everything needed to turn those handles into tracebacks. Both
// carry the same model id (model_id.h). PyTorch 1.13 loads and runs the stripped model.
#pragma once

#include <cstdint>
#include <string>

#include "symbolite/support/content_hash.h"

namespace symbolite::mobile {

struct SplitResult {
  Hash128 model_id{};
  std::uint64_t model_size = 0;
  std::uint64_t stripped_size = 0;
  std::uint64_t sidecar_size = 0;
  std::uint64_t debug_record_bytes = 0;  // uncompressed bytes of the records removed
  std::size_t removed_records = 0;
};

// Reads `model_path` and writes both files. Nothing is left behind on failure: the outputs
// are written to temporary files and renamed into place only when both are complete.
// Throws Error(kModel) for a model without debug information to split.
SplitResult split_model(const std::string& model_path, const std::string& stripped_path,
                        const std::string& sidecar_path);

}  // namespace symbolite::mobile
