#include "symbolite/archive/model_archive_writer.h"

#include <utility>

#include <fmt/format.h>

#include "symbolite/archive/zip_format.h"
#include "symbolite/support/error.h"

namespace symbolite::archive {
namespace {

// PyTorch 1.13 moved the version record under ".data/" for format version 6 and later.
constexpr std::uint64_t kFirstDataFolderVersion = 6;

bool is_version_record(std::string_view record) {
  return record == "version" || record == ".data/version";
}

}  // namespace

ModelArchiveWriter::ModelArchiveWriter(ZipWriter zip, std::string record_folder)
    : zip_(std::move(zip)), folder_(std::move(record_folder)) {
  if (folder_.empty() || folder_.find('/') != std::string::npos) {
    throw Error(ErrorKind::kUsage,
                fmt::format("invalid record folder '{}': it must be one non-empty path "
                            "component",
                            folder_));
  }
}

void ModelArchiveWriter::add_record(std::string_view record, std::span<const std::uint8_t> data,
                                    Compression compression) {
  check_record(record);
  zip_.add(entry_name(record), data, compression);
  note(record);
}

void ModelArchiveWriter::copy_record(const ModelArchive& from, std::string_view record) {
  check_record(record);
  // Reading first checks the CRC (inflating deflated records) and names a missing record.
  Bytes data = from.read_record(record);
  const ZipEntry* entry = from.zip().find(fmt::format("{}/{}", from.record_folder(), record));
  if (entry->method == zip::kMethodDeflated) {
    zip_.add_precompressed(entry_name(record), from.zip().read_raw(*entry).span(), entry->crc32,
                           entry->uncompressed_size);
  } else {
    zip_.add(entry_name(record), data.span(), Compression::kStored);
  }
  note(record);
}

std::vector<std::uint8_t> ModelArchiveWriter::finish() {
  if (!has_version_record_ && !zip_.finished()) {
    std::string version = fmt::format("{}\n", version_);
    std::string_view record = version_ >= kFirstDataFolderVersion ? ".data/version" : "version";
    add_record(record, {reinterpret_cast<const std::uint8_t*>(version.data()), version.size()});
  }
  return zip_.finish();
}

void ModelArchiveWriter::check_record(std::string_view record) const {
  if (record.empty() || record.front() == '/') {
    throw Error(ErrorKind::kUsage,
                fmt::format("invalid record name '{}': it must be a relative path", record));
  }
}

std::string ModelArchiveWriter::entry_name(std::string_view record) const {
  return fmt::format("{}/{}", folder_, record);
}

void ModelArchiveWriter::note(std::string_view record) {
  if (is_version_record(record)) has_version_record_ = true;
}

Compression pytorch_compression(std::string_view record, std::uint64_t size) {
  constexpr std::uint64_t kMinToCompress = 200;
  bool compressible = (record.starts_with("code/") && record.ends_with(".py")) ||
                      record.ends_with(".debug_pkl") || record == "callstack_debug_map.pkl";
  return compressible && size > kMinToCompress ? Compression::kDeflated : Compression::kStored;
}

// As caffe2's basename(): after the last '/' or '\', up to the last '.'.
std::string record_folder_for(std::string_view path) {
  std::size_t slash = path.find_last_of("/\\");
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::size_t dot = name.rfind('.');
  std::string_view stem = dot == std::string_view::npos ? name : name.substr(0, dot);
  if (stem.empty()) {
    throw Error(ErrorKind::kUsage,
                fmt::format("cannot name a record folder after '{}': its file name has no "
                            "stem",
                            path));
  }
  return std::string(stem);
}

}  // namespace symbolite::archive
