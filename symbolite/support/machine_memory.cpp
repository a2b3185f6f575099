#include "symbolite/support/machine_memory.h"

#include <sys/sysinfo.h>

#include <limits>

namespace symbolite {

std::size_t machine_memory_bytes() {
  static const std::size_t bytes = [] {
    struct sysinfo info {};
    if (sysinfo(&info) != 0) return std::numeric_limits<std::size_t>::max();
    return (static_cast<std::size_t>(info.totalram) + info.totalswap) * info.mem_unit;
  }();
  return bytes;
}

}  // namespace symbolite
