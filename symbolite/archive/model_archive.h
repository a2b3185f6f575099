// A PyTorch model archive: a zip whose entries all sit in one top-level record folder of any
// name (`model/data.pkl`, `model/code/__torch__.py`, ...). Records are addressed without
// that folder ("data.pkl"), as PyTorch's own reader does.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/archive/zip_reader.h"
#include "symbolite/support/bytes.h"
#include "symbolite/support/mapped_file.h"

namespace symbolite::archive {

class ModelArchive {
 public:
  // Maps `path` and parses it. Throws Error naming the path. `prefetch`: map_file's.
  static ModelArchive open(const std::string& path, ZipLimits limits = {},
                           MapPrefetch prefetch = MapPrefetch::kOnDemand);
  // Parses archive bytes already in memory; `display_name` prefixes errors.
  static ModelArchive from_bytes(Bytes file, std::string display_name, ZipLimits limits = {});

  const std::string& display_name() const { return zip_.display_name(); }
  // The top-level folder without the trailing slash ("model").
  const std::string& record_folder() const { return folder_; }
  // Record names without the folder, in archive order.
  const std::vector<std::string>& records() const { return records_; }

  bool has_record(std::string_view name) const;
  // Size in bytes (uncompressed) of a record, if present.
  std::optional<std::uint64_t> record_size(std::string_view name) const;
  // Throws Error(kNotFound) naming the archive and record when absent; errors while reading
  // name the full entry ("archive entry 'model/bytecode.pkl'").
  Bytes read_record(std::string_view name) const;
  // Same, but nullopt when absent.
  std::optional<Bytes> try_read_record(std::string_view name) const;

  const ZipReader& zip() const { return zip_; }

 private:
  ModelArchive(ZipReader zip);
  ZipReader zip_;
  std::string folder_;
  std::vector<std::string> records_;
};

}  // namespace symbolite::archive
