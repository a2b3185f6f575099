// Raw deflate decompression (RFC 1951, no zlib or gzip wrapper) as zip entries carry it.
#pragma once

#include <cstdint>
#include <span>

#include "symbolite/support/bytes.h"

namespace symbolite::archive {

// Inflates `compressed` into exactly `expected_size` bytes. `base` is the file offset of
// compressed[0], for error messages. Throws Error(kFormat) for a corrupt or truncated
// stream, or one that inflates to more or fewer bytes than expected; output never grows
// past `expected_size`, so the caller's size limits bound the memory used.
Bytes inflate_raw(std::span<const std::uint8_t> compressed, std::uint64_t expected_size,
                  std::uint64_t base);

}  // namespace symbolite::archive
