#include "symbolite/mobile/lazy_debug_source.h"

namespace symbolite::mobile {

LazyDebugSource::LazyDebugSource(archive::ModelArchive archive, std::string top_module_type)
    : archive_(std::move(archive)), top_module_type_(std::move(top_module_type)) {}

const debuginfo::TableDebugInfoSource& LazyDebugSource::decoded() const {
  std::call_once(once_, [this] {
    try {
      info_.emplace(debuginfo::ModelDebugInfo::load(archive_));
      table_.emplace(info_->table, info_->has_handle_table ? &info_->handles : nullptr,
                     top_module_type_, true);
    } catch (...) {
      error_ = std::current_exception();  // every later call reports the same damage
    }
  });
  if (error_) std::rethrow_exception(error_);
  return *table_;
}

std::optional<debuginfo::DebugInfo> LazyDebugSource::find(debuginfo::DebugHandle handle) const {
  return decoded().find(handle);
}

std::optional<debuginfo::InstructionSite> LazyDebugSource::site_of(
    debuginfo::DebugHandle handle) const {
  return decoded().site_of(handle);
}

debuginfo::HandleStats LazyDebugSource::handle_stats() const { return decoded().handle_stats(); }

}  // namespace symbolite::mobile
