// The CRC-32 a zip entry declares for its bytes. libdeflate's (carry-less multiply, about
// 15 GB/s here against zlib's 6.6): loading checks the CRC of every tensor in the file, so its
// speed is most of what loading a large model costs.
#pragma once

#include <cstdint>
#include <span>

namespace symbolite::archive {

std::uint32_t crc32(std::span<const std::uint8_t> data);

}  // namespace symbolite::archive
