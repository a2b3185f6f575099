#include "symbolite/mobile/model_id.h"

#include <algorithm>
#include <string>
#include <vector>

namespace symbolite::mobile {

bool is_debug_only_record(std::string_view record) {
  return record == "callstack_debug_map.pkl" || record.ends_with(".debug_pkl") ||
         record.starts_with("code/") || record == kModelIdRecord;
}

Hash128 compute_model_id(const archive::ModelArchive& archive) {
  std::vector<std::string> names;
  for (const auto& record : archive.records()) {
    if (!is_debug_only_record(record)) names.push_back(record);
  }
  std::sort(names.begin(), names.end());
  ContentHasher hasher;
  for (const auto& name : names) {
    const archive::ZipEntry* entry = archive.zip().find(archive.record_folder() + "/" + name);
    if (entry != nullptr && entry->method != 0) {
      // A compressed record is hashed as the file holds it, with its declared size and CRC:
      // the id never needs gigabytes inflated (a small file can claim them), and `split`
      // copies compressed records verbatim, so a model and its stripped copy still agree.
      Bytes raw = archive.zip().read_raw(*entry);
      hasher.update_u64(name.size());
      hasher.update(name);
      hasher.update_u64(entry->method);
      hasher.update_u64(entry->uncompressed_size);
      hasher.update_u64(entry->crc32);
      hasher.update_u64(raw.size());
      hasher.update(raw.span());
      continue;
    }
    Bytes data = archive.read_record(name);
    hasher.update_u64(name.size());
    hasher.update(name);
    hasher.update_u64(data.size());
    hasher.update(data.span());
  }
  return hasher.digest();
}

}  // namespace symbolite::mobile
