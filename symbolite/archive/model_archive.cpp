#include "symbolite/archive/model_archive.h"

#include <utility>

#include <fmt/format.h>

#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"

namespace symbolite::archive {
namespace {

Error with_archive_name(Error error, const std::string& display_name) {
  if (!display_name.empty()) error.add_context(display_name);
  return error;
}

}  // namespace

ModelArchive ModelArchive::open(const std::string& path, ZipLimits limits, MapPrefetch prefetch) {
  // map_file's errors already name the path.
  return from_bytes(map_file(path, prefetch), path, limits);
}

ModelArchive ModelArchive::from_bytes(Bytes file, std::string display_name, ZipLimits limits) {
  return ModelArchive(ZipReader(std::move(file), std::move(display_name), limits));
}

// PyTorch names the folder after the file it saved to, so any name is accepted, but there
// must be exactly one: its reader takes the first entry's folder and resolves every record
// against it.
ModelArchive::ModelArchive(ZipReader zip) : zip_(std::move(zip)) {
  const std::vector<ZipEntry>& entries = zip_.entries();
  if (entries.empty()) {
    throw with_archive_name(
        Error(ErrorKind::kFormat,
              "archive has no entries; a model archive keeps its records in a top-level folder"),
        display_name());
  }
  records_.reserve(entries.size());
  for (const ZipEntry& entry : entries) {
    std::string_view name = entry.name;
    std::size_t slash = name.find('/');
    if (slash == std::string_view::npos || slash == 0) {
      throw with_archive_name(
          Error(ErrorKind::kFormat,
                fmt::format("byte {}: entry '{}' is not inside a top-level record folder",
                            entry.local_header_offset, name)),
          display_name());
    }
    std::string_view folder = name.substr(0, slash);
    if (&entry == &entries.front()) {
      folder_ = std::string(folder);
    } else if (folder != folder_) {
      throw with_archive_name(
          Error(ErrorKind::kFormat,
                fmt::format("byte {}: entry '{}' lies outside the record folder '{}' (all "
                            "entries must share one top-level folder)",
                            entry.local_header_offset, name, folder_)),
          display_name());
    }
    std::string_view record = name.substr(slash + 1);
    // Directory entries ("model/", "model/code/") hold no record.
    if (record.empty() || record.back() == '/') continue;
    records_.emplace_back(record);
  }
}

bool ModelArchive::has_record(std::string_view name) const {
  return zip_.find(fmt::format("{}/{}", folder_, name)) != nullptr;
}

std::optional<std::uint64_t> ModelArchive::record_size(std::string_view name) const {
  const ZipEntry* entry = zip_.find(fmt::format("{}/{}", folder_, name));
  if (entry == nullptr) return std::nullopt;
  return entry->uncompressed_size;
}

Bytes ModelArchive::read_record(std::string_view name) const {
  std::optional<Bytes> data = try_read_record(name);
  if (!data) {
    throw with_archive_name(
        Error(ErrorKind::kNotFound,
              fmt::format("no record '{}' in the archive (entry '{}/{}')", name, folder_, name)),
        display_name());
  }
  return *std::move(data);
}

std::optional<Bytes> ModelArchive::try_read_record(std::string_view name) const {
  const ZipEntry* entry = zip_.find(fmt::format("{}/{}", folder_, name));
  if (entry == nullptr) return std::nullopt;
  // ZipReader::read names the entry ("archive entry 'model/data.pkl'") and the archive.
  return zip_.read(*entry);
}

}  // namespace symbolite::archive
