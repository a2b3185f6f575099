#include "symbolite/tensor/buffer_pool.h"

#include <map>
#include <mutex>
#include <new>
#include <vector>

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

// Sizes are rounded up so that nearby requests share buffers: to 64 bytes, and to 4 KiB
// (a page) from 64 KiB up.
std::size_t size_class(std::size_t nbytes) {
  if (kMaxPooledBytes == 0) return nbytes;
  std::size_t step = nbytes >= (std::size_t{64} << 10) ? 4096 : 64;
  return (nbytes + step - 1) / step * step;
}

class BufferPool {
 public:
  std::uint8_t* take(std::size_t size) {
    {
      std::lock_guard lock(mutex_);
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        std::uint8_t* p = it->second.back();
        it->second.pop_back();
        pooled_ -= size;
        return p;
      }
    }
    return static_cast<std::uint8_t*>(::operator new(size, kAlignment));
  }

  void give_back(std::uint8_t* p, std::size_t size) {
    {
      std::lock_guard lock(mutex_);
      if (pooled_ + size <= kMaxPooledBytes) {
        free_[size].push_back(p);
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
  std::map<std::size_t, std::vector<std::uint8_t*>> free_;
  std::size_t pooled_ = 0;
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
  std::size_t size = size_class(nbytes);
  // operator new(0, align) still gives a unique pointer, so an empty buffer is valid too.
  std::uint8_t* p = pool().take(size);
  counts.allocated += static_cast<std::int64_t>(nbytes);
  return std::shared_ptr<std::uint8_t>(p, [size, nbytes](std::uint8_t* q) {
    counts.freed += static_cast<std::int64_t>(nbytes);
    pool().give_back(q, size);
  });
}

AllocationCounts thread_allocation_counts() { return counts; }

std::size_t pooled_bytes() { return pool().pooled(); }

}  // namespace symbolite::tensor
