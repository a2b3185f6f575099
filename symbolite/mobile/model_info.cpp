#include "symbolite/mobile/model_info.h"

#include "symbolite/debuginfo/archive_records.h"
#include "symbolite/debuginfo/table_debug_info_source.h"

namespace symbolite::mobile {

ModelInfo ModelInfo::load(const std::string& path) {
  return from_archive(archive::ModelArchive::open(path));
}

ModelInfo ModelInfo::from_archive(archive::ModelArchive archive) {
  ModuleNode modules = debuginfo::decode_pickle_record(
      archive, "data.pkl", [](const pickle::Value& v) { return read_module_tree(v); });
  std::optional<Bytecode> bytecode;
  if (archive.has_record("bytecode.pkl")) {
    bytecode = debuginfo::decode_pickle_record(
        archive, "bytecode.pkl", [](const pickle::Value& v) { return read_bytecode(v); });
  }
  auto debug = debuginfo::ModelDebugInfo::load(archive);
  return ModelInfo{std::move(archive), std::move(bytecode), std::move(modules), std::move(debug)};
}

debuginfo::Symbolicator ModelInfo::symbolicator() const {
  return debuginfo::Symbolicator(std::make_shared<debuginfo::TableDebugInfoSource>(
      debug.table, debug.has_handle_table ? &debug.handles : nullptr, modules.type,
      debug.has_callstack_map));
}

}  // namespace symbolite::mobile
