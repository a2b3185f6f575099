// A model's own debug info, decoded when first asked for: loading a model for running reads
// none of its debug records, and the source ranges and call stacks (most of a debug build's
// records, and half its load time) wait for the first failure, profile or symbolication (the
// per-instruction handles: mobile/lazy_handle_table.h). Safe to use from several threads:
// the first caller decodes, once.
#pragma once

#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "symbolite/archive/model_archive.h"
#include "symbolite/debuginfo/debug_info_source.h"
#include "symbolite/debuginfo/model_debug_info.h"
#include "symbolite/debuginfo/table_debug_info_source.h"

namespace symbolite::mobile {

class LazyDebugSource : public debuginfo::DebugInfoSource {
 public:
  // `archive` must hold a call-stack map; it is kept (a shared view of the mapped file).
  LazyDebugSource(archive::ModelArchive archive, std::string top_module_type);

  // Decode the records (at most once); a damaged record throws its Error here, each time.
  std::optional<debuginfo::DebugInfo> find(debuginfo::DebugHandle handle) const override;
  std::optional<debuginfo::InstructionSite> site_of(debuginfo::DebugHandle handle) const override;
  debuginfo::HandleStats handle_stats() const override;
  // Known without decoding.
  const std::string& top_module_type() const override { return top_module_type_; }
  bool has_call_stacks() const override { return true; }

 private:
  const debuginfo::TableDebugInfoSource& decoded() const;

  archive::ModelArchive archive_;
  std::string top_module_type_;
  mutable std::once_flag once_;
  mutable std::optional<debuginfo::ModelDebugInfo> info_;
  mutable std::optional<debuginfo::TableDebugInfoSource> table_;
  mutable std::exception_ptr error_;
};

}  // namespace symbolite::mobile
