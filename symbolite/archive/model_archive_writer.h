// Writes a PyTorch model archive: records under one top-level record folder, then the
// bookkeeping PyTorch 1.13 adds when it closes an archive (the format version record), over
// a ZipWriter that lays entries out as PyTorch does. The reading side is ModelArchive.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/archive/model_archive.h"
#include "symbolite/archive/zip_writer.h"

namespace symbolite::archive {

class ModelArchiveWriter {
 public:
  // What PyTorch 1.13 writes unless an operator in the model needs more
  // (kMinProducedFileFormatVersion).
  static constexpr std::uint64_t kDefaultVersion = 3;

  // Records go to "<record_folder>/<record>". Throws Error(kUsage) for an empty folder name
  // or one with a '/'.
  ModelArchiveWriter(ZipWriter zip, std::string record_folder);

  const std::string& record_folder() const { return folder_; }

  // Adds a record ("data.pkl", "code/__torch__.py"). PyTorch stores pickles and tensor data
  // and deflates code and debug pickles; the caller chooses. Throws Error(kUsage) for an
  // empty or absolute name, a duplicate, or after finish().
  void add_record(std::string_view record, std::span<const std::uint8_t> data,
                  Compression compression = Compression::kStored);
  // Copies a record of `from` as it is there: stored stays stored, deflated bytes are copied
  // without recompressing (both CRC-checked on the way). Throws Error(kNotFound) when
  // `from` has no such record.
  void copy_record(const ModelArchive& from, std::string_view record);

  // The format version that finish() writes when no "version" or ".data/version" record was
  // added.
  void set_version(std::uint64_t version) { version_ = version; }

  // Adds the version record unless one was added, as PyTorch's writeEndOfFile does
  // (".data/version" from version 6 on, else "version"; "<n>\n", stored), then finishes
  // the zip. Returns the archive for a memory writer.
  std::vector<std::uint8_t> finish();

 private:
  void check_record(std::string_view record) const;
  std::string entry_name(std::string_view record) const;
  void note(std::string_view record);

  ZipWriter zip_;
  std::string folder_;
  std::uint64_t version_ = kDefaultVersion;
  bool has_version_record_ = false;
};

// What PyTorch 1.13 chooses for a record of `size` bytes: code (`code/...py`), debug pickles
// (`*.debug_pkl`) and `callstack_debug_map.pkl` are deflated when over 200 bytes
// (export_module.cpp's kMinToCompress); pickles, tensor data and the rest are stored.
Compression pytorch_compression(std::string_view record, std::uint64_t size);

// The record folder PyTorch names after the path it saves to: the file name without its
// last extension ("out/model.ptl" -> "model"). Throws Error(kUsage) when that is empty.
std::string record_folder_for(std::string_view path);

}  // namespace symbolite::archive
