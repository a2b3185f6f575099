// The command's operator new when it allocates with mimalloc: the next definition in the
// process (libmimalloc's, or libstdc++'s, which calls mimalloc's malloc), after refusing a
// request larger than this machine's memory and swap together. glibc's malloc gets such a
// request refused by the kernel's overcommit heuristic, but mimalloc maps large blocks without
// reserving them (MAP_NORESERVE), so a model asking for terabytes (`[0] * n`, a huge output
// size) got its memory and was killed writing it, taking the machine's memory with it. Now the
// request throws std::bad_alloc, which the interpreter reports as the operator's failure.
// Linked into the `symbolite` executable only (symbolite/CMakeLists.txt), whose definitions
// replace the others for every caller in the process. The allocation itself stays with the
// library's exported operator new, found once by dlsym: memcheck (tests/valgrind/) intercepts
// that one, and operator delete, which is not replaced, must free what it allocated.
#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <new>

#include "symbolite/support/machine_memory.h"

namespace {

bool beyond_memory(std::size_t n) { return !symbolite::fits_in_memory(n); }

// The definition this file's replaces, by its mangled name; the process cannot run without it.
template <typename F>
F next_definition(const char* mangled) {
  void* f = dlsym(RTLD_NEXT, mangled);
  if (f == nullptr) std::abort();
  return reinterpret_cast<F>(f);
}

using New = void* (*)(std::size_t);
using NewNothrow = void* (*)(std::size_t, const std::nothrow_t&);
using NewAligned = void* (*)(std::size_t, std::align_val_t);
using NewAlignedNothrow = void* (*)(std::size_t, std::align_val_t, const std::nothrow_t&);

}  // namespace

void* operator new(std::size_t n) {
  static const New next = next_definition<New>("_Znwm");
  if (beyond_memory(n)) throw std::bad_alloc();
  return next(n);
}
void* operator new[](std::size_t n) {
  static const New next = next_definition<New>("_Znam");
  if (beyond_memory(n)) throw std::bad_alloc();
  return next(n);
}
void* operator new(std::size_t n, const std::nothrow_t& tag) noexcept {
  static const NewNothrow next = next_definition<NewNothrow>("_ZnwmRKSt9nothrow_t");
  return beyond_memory(n) ? nullptr : next(n, tag);
}
void* operator new[](std::size_t n, const std::nothrow_t& tag) noexcept {
  static const NewNothrow next = next_definition<NewNothrow>("_ZnamRKSt9nothrow_t");
  return beyond_memory(n) ? nullptr : next(n, tag);
}
void* operator new(std::size_t n, std::align_val_t alignment) {
  static const NewAligned next = next_definition<NewAligned>("_ZnwmSt11align_val_t");
  if (beyond_memory(n)) throw std::bad_alloc();
  return next(n, alignment);
}
void* operator new[](std::size_t n, std::align_val_t alignment) {
  static const NewAligned next = next_definition<NewAligned>("_ZnamSt11align_val_t");
  if (beyond_memory(n)) throw std::bad_alloc();
  return next(n, alignment);
}
void* operator new(std::size_t n, std::align_val_t alignment, const std::nothrow_t& tag) noexcept {
  static const NewAlignedNothrow next =
      next_definition<NewAlignedNothrow>("_ZnwmSt11align_val_tRKSt9nothrow_t");
  return beyond_memory(n) ? nullptr : next(n, alignment, tag);
}
void* operator new[](std::size_t n, std::align_val_t alignment,
                     const std::nothrow_t& tag) noexcept {
  static const NewAlignedNothrow next =
      next_definition<NewAlignedNothrow>("_ZnamSt11align_val_tRKSt9nothrow_t");
  return beyond_memory(n) ? nullptr : next(n, alignment, tag);
}
