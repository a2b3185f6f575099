// Writing a lite-interpreter model (`.ptl`) with new bytecode and debug information: every
// record of an original archive is copied as it is (stored or deflated bytes verbatim, in
// the original order) except the ones this replaces — `bytecode.pkl`,
// `mobile_debug_handles.pkl`, `callstack_debug_map.pkl` and every `*.debug_pkl` — and
// `symbolite_model_id`, which would no longer describe the model. The new records go where
// PyTorch 1.13 writes them: `bytecode.pkl` in the original's place (before the version
// record when it had none), followed by the debug records (debug_records_writer.h) when
// `debug` is given; the version record stays last. Compression as PyTorch chooses it.
// Equal inputs give byte-identical files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symbolite/archive/model_archive.h"
#include "symbolite/debuginfo/debug_records_writer.h"
#include "symbolite/mobile/bytecode.h"

namespace symbolite::mobile {

// The archive bytes. Throws Error(kModel) when a tensor constant of `bytecode` refers to a
// storage the original has no `constants/<key>` record for.
// `data_pkl`, when given, replaces `data.pkl` (a lowering adds lowered modules to the module
// tree); its tensors must refer to storages the original has under data/.
std::vector<std::uint8_t> write_model_bytes(const archive::ModelArchive& original,
                                            const Bytecode& bytecode,
                                            const debuginfo::DebugRecords* debug,
                                            const std::vector<std::uint8_t>* data_pkl = nullptr);

// write_model_bytes, written to `path` by write_file_atomically (support/output_files.h).
void write_model(const archive::ModelArchive& original, const Bytecode& bytecode,
                 const debuginfo::DebugRecords* debug, const std::string& path,
                 const std::vector<std::uint8_t>* data_pkl = nullptr);

}  // namespace symbolite::mobile
