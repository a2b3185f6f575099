// `ModelInfo`: a model archive opened for inspection and symbolication — its bytecode,
// module tree and debug information. This is the entry point of `symbolite inspect` and
// `symbolite symbolicate`; the runtime's loader builds on the same pieces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "symbolite/archive/model_archive.h"
#include "symbolite/debuginfo/model_debug_info.h"
#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/mobile/bytecode.h"
#include "symbolite/mobile/module_tree.h"

namespace symbolite::mobile {

struct ModelInfo {
  archive::ModelArchive archive;
  std::optional<Bytecode> bytecode;  // absent in a full TorchScript (.pt) archive
  ModuleNode modules;
  debuginfo::ModelDebugInfo debug;

  // What to read: everything (inspection, symbolication), or what running needs — the
  // bytecode, with data.pkl left to the loader and the debug records (the handle table
  // included) to when they are first needed (mobile/lazy_debug_source.h,
  // mobile/lazy_handle_table.h).
  enum class Contents { kAll, kForRunning };
  Contents contents = Contents::kAll;
  // The archive's `version` record (PyTorch's operator version, not the bytecode version):
  // files older than an operator's change run it through an upgrader (operator_upgraders.h).
  // Absent when the archive has no such record.
  std::optional<std::uint64_t> operator_version;

  // Opens and reads `path`. Throws Error naming the file, entry and byte offset.
  static ModelInfo load(const std::string& path);
  // Reads an archive already opened (e.g. from bytes in memory).
  static ModelInfo from_archive(archive::ModelArchive archive, Contents contents = Contents::kAll);

  // The root module's qualified type ("__torch__.Top"); empty when read kForRunning.
  const std::string& top_type() const { return modules.type; }

  // A symbolicator over this model's debug info; valid while this ModelInfo lives and is
  // not moved.
  debuginfo::Symbolicator symbolicator() const;
};

}  // namespace symbolite::mobile
