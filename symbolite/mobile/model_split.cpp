#include "symbolite/mobile/model_split.h"

#include <filesystem>

#include <fmt/format.h>

#include "symbolite/archive/model_archive_writer.h"
#include "symbolite/debuginfo/sidecar_writer.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/error.h"
#include "symbolite/support/output_files.h"

namespace symbolite::mobile {

SplitResult split_model(const std::string& model_path, const std::string& stripped_path,
                        const std::string& sidecar_path) {
  auto model = ModelInfo::load(model_path);
  if (!model.debug.has_callstack_map) {
    throw Error(ErrorKind::kModel,
                fmt::format("{}: has no debug information to split (no callstack_debug_map.pkl); "
                            "save it with _save_for_mobile(path, {{}}, True)",
                            model_path));
  }
  SplitResult result;
  result.model_id = compute_model_id(model.archive);
  result.model_size = std::filesystem::file_size(model_path);

  OutputFiles files;  // the stripped model and the sidecar land together or not at all
  const std::string stripped_temp = files.stage_empty(stripped_path);
  {
    archive::ModelArchiveWriter writer(archive::ZipWriter::to_file(stripped_temp),
                                       model.archive.record_folder());
    // PyTorch writes the version record last; keep it last, after the id record.
    auto is_version = [](std::string_view r) { return r == "version" || r == ".data/version"; };
    for (const auto& record : model.archive.records()) {
      if (is_debug_only_record(record)) {
        result.debug_record_bytes += model.archive.record_size(record).value_or(0);
        ++result.removed_records;
      } else if (!is_version(record)) {
        writer.copy_record(model.archive, record);
      }
    }
    std::string id = to_hex(result.model_id) + "\n";
    writer.add_record(kModelIdRecord,
                      std::span(reinterpret_cast<const std::uint8_t*>(id.data()), id.size()));
    for (const auto& record : model.archive.records()) {
      if (is_version(record)) writer.copy_record(model.archive, record);
    }
    writer.finish();
  }
  auto bytes = debuginfo::write_sidecar(debuginfo::SidecarContents{
      result.model_id, model.top_type(), model.bytecode ? model.bytecode->version : 0,
      &model.debug.table, model.debug.has_handle_table ? &model.debug.handles : nullptr});
  files.stage(sidecar_path, bytes);
  result.sidecar_size = bytes.size();
  result.stripped_size = std::filesystem::file_size(stripped_temp);
  files.commit();
  return result;
}

}  // namespace symbolite::mobile
