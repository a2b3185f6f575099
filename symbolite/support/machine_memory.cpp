#include "symbolite/support/machine_memory.h"

#include <sys/sysinfo.h>

#include <algorithm>
#include <atomic>
#include <limits>

namespace symbolite {
namespace {

std::size_t ram_and_swap() {
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return std::numeric_limits<std::size_t>::max();
  return (static_cast<std::size_t>(info.totalram) + info.totalswap) * info.mem_unit;
}

std::atomic<std::size_t>& bound() {
  static std::atomic<std::size_t> bytes{ram_and_swap()};
  return bytes;
}

}  // namespace

std::size_t machine_memory_bytes() { return bound().load(std::memory_order_relaxed); }

void set_memory_bound(std::size_t bytes) {
  bound().store(std::min(bytes, bound().load()), std::memory_order_relaxed);
}

}  // namespace symbolite
