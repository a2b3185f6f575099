// Finds debug handles in free text such as crash logs, in the shapes PyTorch and symbolite
// print them:
//   "debug_handles:{12, 13}"   (PyTorch: "Debug info for handle(s): debug_handles:{7}, ...")
//   "debug handle 12", "debug_handle: 12", "debug handle=12"
// The scanner is linear, allocation-light and never fails: text it does not recognise is
// skipped. Lines may be of any length (the text is scanned as one buffer).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "symbolite/debuginfo/debug_info.h"

namespace symbolite::debuginfo {

struct HandleMention {
  std::size_t line = 0;              // 1-based line of the text where the mention starts
  std::size_t offset = 0;            // byte offset of the mention
  std::vector<DebugHandle> handles;  // one, or several for "debug_handles:{a, b}"
  // Numbers in a "debug_handles:{...}" set too large for a handle (past int64): skipped,
  // their neighbours kept.
  std::size_t skipped = 0;
};

std::vector<HandleMention> find_handle_mentions(std::string_view text);

// A handle a log mentions, once: at its first mention, with how often the log names it (a log
// that repeats one failure a million times gives one answer, not a million).
struct LoggedHandle {
  DebugHandle handle = 0;
  std::size_t line = 0;      // 1-based line of the first mention
  std::size_t mentions = 0;  // times the log names the handle
};

struct LogHandles {
  std::vector<LoggedHandle> handles;  // in order of first mention
  std::size_t skipped = 0;            // numbers too large for a handle, left out
};

LogHandles log_handles(std::string_view text);

}  // namespace symbolite::debuginfo
