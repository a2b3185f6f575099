// Read-only memory mapping of a whole file. The returned Bytes owns the mapping: the file
// stays mapped until the last view of it is gone.
#pragma once

#include <cstddef>
#include <string>

#include "symbolite/support/bytes.h"

namespace symbolite {

// Maps `path` read-only. Throws Error(kIo / kNotFound) naming the path on failure (a
// directory too). An empty file gives empty Bytes; a pipe or device is read with read_file.
Bytes map_file(const std::string& path);

// A stream is read whole into memory: more than this is refused (/dev/zero never ends).
inline constexpr std::size_t kMaxStreamBytes = std::size_t{1} << 30;

// Reads a whole stream-like file (e.g. a pipe) into memory; used where mapping is impossible.
// Throws Error(kLimit) past kMaxStreamBytes.
Bytes read_file(const std::string& path);

}  // namespace symbolite
