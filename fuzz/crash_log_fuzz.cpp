// Fuzzes the crash-log scanner of `symbolite symbolicate MODEL -`: any text must scan
// without crashing, and every mention must carry at least one handle or one number skipped
// as too large for a handle.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "symbolite/debuginfo/crash_log.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& mention : symbolite::debuginfo::find_handle_mentions(text)) {
    if ((mention.handles.empty() && mention.skipped == 0) || mention.offset >= size) std::abort();
  }
  return 0;
}
