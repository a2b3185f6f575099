#include "symbolite/tensor/buffer_pool.h"

#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::tensor {
namespace {

constexpr std::align_val_t kAlignment{64};

// Under AddressSanitizer the pool is off: every buffer has its exact size and is freed at
// once, so out-of-bounds and use-after-free accesses to tensor data are still caught.
#if defined(__SANITIZE_ADDRESS__)
#define SYMBOLITE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYMBOLITE_ASAN 1
#endif
#endif
#ifdef SYMBOLITE_ASAN
constexpr std::size_t kMaxPooledBytes = 0;
#else
// Freed buffers beyond this many bytes go back to the system.
constexpr std::size_t kMaxPooledBytes = std::size_t{256} << 20;
#endif

// A request takes the most recently freed buffer of its size class or larger, up to this
// many times larger, rather than the last one of its exact class: a buffer freed by the
// operator just before is still in cache, one freed a layer earlier is not. A model's
// activations are read back right after they are written, so where they land matters:
// EfficientNet-B0 1.08x faster at one thread and 1.04x at two, MobileNet-V2 1.12x / 1.05x
// (2x and 16x measured too, docs/PERFORMANCE.md). A buffer keeps its own size class when it
// goes back.
constexpr std::size_t kMaxOversize = 4;

// Sizes are rounded up so that nearby requests share buffers: to 64 bytes, and to 4 KiB
// (a page) from 64 KiB up.
std::size_t size_class(std::size_t nbytes) {
  if (kMaxPooledBytes == 0) return nbytes;
  std::size_t step = nbytes >= (std::size_t{64} << 10) ? 4096 : 64;
  return (nbytes + step - 1) / step * step;
}

struct Taken {
  std::uint8_t* data;
  std::size_t capacity;
};

class BufferPool {
 public:
  Taken take(std::size_t size) {
    {
      std::lock_guard lock(mutex_);
      // The most recently freed buffer from this size class up to kMaxOversize times it:
      // it is the likeliest to be in cache still (ticks start at 1).
      auto best = free_.end();
      std::uint64_t best_tick = 0;
      for (auto it = free_.lower_bound(size); it != free_.end() && it->first <= size * kMaxOversize;
           ++it) {
        if (!it->second.empty() && it->second.back().tick > best_tick) {
          best = it;
          best_tick = it->second.back().tick;
        }
      }
      if (best != free_.end()) {
        std::uint8_t* p = best->second.back().data;
        best->second.pop_back();
        pooled_ -= best->first;
        return {p, best->first};
      }
    }
    try {
      return {static_cast<std::uint8_t*>(::operator new(size, kAlignment)), size};
    } catch (const std::bad_alloc&) {
      // PyTorch's words (DefaultCPUAllocator), so a model's failure reads the same.
      throw Error(ErrorKind::kLimit,
                  fmt::format("can't allocate memory: you tried to allocate {} bytes", size));
    }
  }

  void give_back(std::uint8_t* p, std::size_t size) {
    {
      std::lock_guard lock(mutex_);
      if (pooled_ + size <= kMaxPooledBytes) {
        free_[size].push_back({p, ++tick_});
        pooled_ += size;
        return;
      }
    }
    ::operator delete(p, kAlignment);
  }

  std::size_t pooled() {
    std::lock_guard lock(mutex_);
    return pooled_;
  }

 private:
  std::mutex mutex_;
  struct Freed {
    std::uint8_t* data;
    std::uint64_t tick;  // when it was freed
  };
  std::map<std::size_t, std::vector<Freed>> free_;
  std::size_t pooled_ = 0;
  std::uint64_t tick_ = 0;
};

// Never destroyed: tensors in static objects may release their buffers during exit, after
// function-local statics would be gone. The pool stays reachable, so leak checkers are quiet.
BufferPool& pool() {
  static BufferPool* instance = new BufferPool;
  return *instance;
}

thread_local AllocationCounts counts;

}  // namespace

std::shared_ptr<std::uint8_t> acquire_buffer(std::size_t nbytes) {
  // operator new(0, align) still gives a unique pointer, so an empty buffer is valid too.
  const Taken taken = pool().take(size_class(nbytes));
  counts.allocated += static_cast<std::int64_t>(nbytes);
#ifdef SYMBOLITE_ASAN
  // Sanitizer builds fill every buffer with 0xFF bytes (NaN floats, -1 integers, bools UBSan
  // refuses), so a kernel that leaves part of an uninitialized output unwritten fails the
  // tests' comparisons on every run, not only when the pool hands back a used buffer.
  std::memset(taken.data, 0xFF, nbytes);
#endif
  return std::shared_ptr<std::uint8_t>(taken.data,
                                       [size = taken.capacity, nbytes](std::uint8_t* q) {
                                         counts.freed += static_cast<std::int64_t>(nbytes);
                                         pool().give_back(q, size);
                                       });
}

AllocationCounts thread_allocation_counts() { return counts; }

std::size_t pooled_bytes() { return pool().pooled(); }

}  // namespace symbolite::tensor
