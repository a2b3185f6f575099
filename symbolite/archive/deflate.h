// Raw deflate compression (RFC 1951, no zlib or gzip wrapper), the inverse of inflate.h, for
// the zip writer's deflated entries.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace symbolite::archive {

// Compresses `data` at zlib's best compression (PyTorch asks miniz for its best, level 9).
// The output is deterministic for a given zlib build, but not byte-identical to miniz's.
std::vector<std::uint8_t> deflate_raw(std::span<const std::uint8_t> data);

}  // namespace symbolite::archive
