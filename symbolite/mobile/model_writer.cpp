#include "symbolite/mobile/model_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <span>

#include <fmt/format.h>

#include "symbolite/archive/model_archive_writer.h"
#include "symbolite/debuginfo/handle_table_reader.h"
#include "symbolite/mobile/bytecode_writer.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/support/error.h"
#include "symbolite/support/output_files.h"

namespace symbolite::mobile {
namespace {

constexpr std::string_view kBytecodeRecord = "bytecode.pkl";

bool is_replaced(std::string_view record) {
  return record == kBytecodeRecord || record == debuginfo::kHandleTableRecord ||
         record == "callstack_debug_map.pkl" || record.ends_with(".debug_pkl") ||
         record == kModelIdRecord;
}

bool is_version(std::string_view record) {
  return record == "version" || record == ".data/version";
}

void check_tensor_storages(const archive::ModelArchive& original, const Bytecode& bytecode) {
  for (const auto& key : tensor_constant_keys(bytecode)) {
    if (!original.has_record("constants/" + key)) {
      throw Error(ErrorKind::kModel,
                  fmt::format("{}: a tensor constant refers to storage '{}', but the archive "
                              "has no record constants/{}",
                              original.display_name(), key, key));
    }
  }
}

void add(archive::ModelArchiveWriter& writer, std::string_view record,
         std::span<const std::uint8_t> bytes) {
  writer.add_record(record, bytes, archive::pytorch_compression(record, bytes.size()));
}

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

std::vector<std::uint8_t> write_model_bytes(const archive::ModelArchive& original,
                                            const Bytecode& bytecode,
                                            const debuginfo::DebugRecords* debug,
                                            const std::vector<std::uint8_t>* data_pkl) {
  check_tensor_storages(original, bytecode);
  archive::ModelArchiveWriter writer(archive::ZipWriter::to_memory(), original.record_folder());
  bool written = false;
  auto write_new = [&] {
    if (written) return;
    written = true;
    add(writer, kBytecodeRecord, write_bytecode(bytecode));
    if (debug == nullptr) return;
    for (const auto& [record, bytes] : debuginfo::write_debug_records(*debug, bytecode.version)) {
      add(writer, record, as_bytes(bytes));
    }
  };
  for (const auto& record : original.records()) {
    if (record == kBytecodeRecord || is_version(record)) write_new();
    if (data_pkl != nullptr && record == "data.pkl") {
      add(writer, record, *data_pkl);
    } else if (!is_replaced(record)) {
      writer.copy_record(original, record);
    }
  }
  write_new();
  return writer.finish();
}

void write_model(const archive::ModelArchive& original, const Bytecode& bytecode,
                 const debuginfo::DebugRecords* debug, const std::string& path,
                 const std::vector<std::uint8_t>* data_pkl) {
  write_file_atomically(path, write_model_bytes(original, bytecode, debug, data_pkl));
}

}  // namespace symbolite::mobile
