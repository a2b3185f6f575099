// Writes a `.symdbg` sidecar (format in sidecar_format.h and docs/FORMATS.md) from a model's
// debug tables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symbolite/debuginfo/debug_table.h"
#include "symbolite/debuginfo/handle_table_reader.h"
#include "symbolite/support/content_hash.h"

namespace symbolite::debuginfo {

struct SidecarContents {
  Hash128 model_id{};
  std::string top_module_type;  // "__torch__.Top"
  std::int64_t bytecode_version = 0;
  const DebugTable* table = nullptr;     // required
  const HandleTable* handles = nullptr;  // optional: instruction sites
};

std::vector<std::uint8_t> write_sidecar(const SidecarContents& contents);

}  // namespace symbolite::debuginfo
