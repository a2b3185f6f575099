// A model's identity, for matching a stripped model with its sidecar: a 128-bit hash of every
// record that stays in the model when its debug information is split off (bytecode, data,
// constants, tensor storages, the per-instruction handle table), in name order. The full
// model and its stripped copy therefore have the same id, and any change to what runs
// changes it. Stored records (all of them in files PyTorch writes) are hashed by content;
// compressed ones as the file holds them (compressed bytes, declared size, CRC-32), so that
// computing an id never inflates anything.
#pragma once

#include <string_view>

#include "symbolite/archive/model_archive.h"
#include "symbolite/support/content_hash.h"

namespace symbolite::mobile {

// The record where `symbolite split` writes the id into a stripped model.
inline constexpr std::string_view kModelIdRecord = "symbolite_model_id";

// True for records that hold only debug information (serialized code, source ranges,
// call stacks) and leave the model when it is split, and for the id record itself.
bool is_debug_only_record(std::string_view record);

Hash128 compute_model_id(const archive::ModelArchive& archive);

}  // namespace symbolite::mobile
