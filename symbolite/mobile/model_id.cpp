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
    Bytes data = archive.read_record(name);
    hasher.update_u64(name.size());
    hasher.update(name);
    hasher.update_u64(data.size());
    hasher.update(data.span());
  }
  return hasher.digest();
}

}  // namespace symbolite::mobile
