// The command's operator new when it allocates with mimalloc: mimalloc's own, after refusing a
// request larger than this machine's memory and swap together. glibc's malloc gets such a
// request refused by the kernel's overcommit heuristic, but mimalloc maps large blocks without
// reserving them (MAP_NORESERVE), so a model asking for terabytes (`[0] * n`, a huge output
// size) got its memory and was killed writing it, taking the machine's memory with it. Now the
// request throws std::bad_alloc, which the interpreter reports as the operator's failure.
// Linked into the `symbolite` executable only (symbolite/CMakeLists.txt), whose definitions
// replace the ones libmimalloc exports for every caller in the process.
#include <mimalloc.h>

#include <cstddef>
#include <new>

#include "symbolite/support/machine_memory.h"

namespace {

bool beyond_memory(std::size_t n) { return n > symbolite::machine_memory_bytes(); }

}  // namespace

void* operator new(std::size_t n) {
  if (beyond_memory(n)) throw std::bad_alloc();
  return mi_new(n);
}
void* operator new[](std::size_t n) {
  if (beyond_memory(n)) throw std::bad_alloc();
  return mi_new(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return beyond_memory(n) ? nullptr : mi_new_nothrow(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return beyond_memory(n) ? nullptr : mi_new_nothrow(n);
}
void* operator new(std::size_t n, std::align_val_t alignment) {
  if (beyond_memory(n)) throw std::bad_alloc();
  return mi_new_aligned(n, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t n, std::align_val_t alignment) {
  if (beyond_memory(n)) throw std::bad_alloc();
  return mi_new_aligned(n, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t n, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return beyond_memory(n) ? nullptr
                          : mi_new_aligned_nothrow(n, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t n, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return beyond_memory(n) ? nullptr
                          : mi_new_aligned_nothrow(n, static_cast<std::size_t>(alignment));
}
