#include "symbolite/archive/crc32.h"

#include <libdeflate.h>

namespace symbolite::archive {

std::uint32_t crc32(std::span<const std::uint8_t> data) {
  return libdeflate_crc32(0, data.data(), data.size());
}

}  // namespace symbolite::archive
