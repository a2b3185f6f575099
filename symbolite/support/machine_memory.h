// This machine's memory and swap together: the most one allocation may ask for. Linux's
// default overcommit heuristic refuses a larger malloc, and code that must fail cleanly checks
// against it first: mimalloc (the command's allocator) maps large blocks without reserving
// them, so there such a request succeeds and the process is killed writing the pages, and
// AddressSanitizer aborts on it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace symbolite {

// Bytes of RAM plus swap (sysinfo), read once; SIZE_MAX when unknown (no bound); or the lower
// bound this process set.
std::size_t machine_memory_bytes();

// Lowers the bound for the rest of the process: a fuzz harness sets one below libFuzzer's
// malloc limit, so a size an input chose is refused as it would be on a smaller machine.
void set_memory_bound(std::size_t bytes);

// Whether `count` elements of `element_bytes` each fit in that memory (a negative count,
// converted, does not): the check before building something whose size an input chose.
inline bool fits_in_memory(std::uint64_t count, std::size_t element_bytes = 1) {
  return count <= machine_memory_bytes() / element_bytes;
}

}  // namespace symbolite
