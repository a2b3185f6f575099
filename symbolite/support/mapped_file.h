// Read-only memory mapping of a whole file. The returned Bytes owns the mapping: the file
// stays mapped until the last view of it is gone.
#pragma once

#include <string>

#include "symbolite/support/bytes.h"

namespace symbolite {

// Maps `path` read-only. Throws Error(kIo / kNotFound) naming the path on failure; what is not
// a regular file (directory, device, FIFO, socket) is refused before it is opened. An empty
// file gives empty Bytes.
Bytes map_file(const std::string& path);

}  // namespace symbolite
