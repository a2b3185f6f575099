// Recycles the buffers under owned tensor storages. A model run frees and re-allocates
// activations of the same few sizes over and over; handing each one back to the system
// (large blocks are mmapped) made every kernel pay page faults on fresh pages. The pool keeps
// freed buffers by size and hands them out again, up to a cap on the bytes it holds: a
// request takes the most recently freed one of its size or up to four times larger, the one
// likeliest to be in cache still (buffer_pool.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace symbolite::tensor {

// A 64-byte aligned, uninitialized buffer of at least `nbytes` bytes (as PyTorch's CPU
// allocator aligns, so any dtype fits). It goes back to the pool when its last owner drops it.
// Throws Error (kLimit) when the allocator has no memory for it.
std::shared_ptr<std::uint8_t> acquire_buffer(std::size_t nbytes);

// Bytes the pool holds for reuse right now (not in use by any tensor).
std::size_t pooled_bytes();

// Tensor bytes this thread has acquired and released since it started (requested sizes).
// The profiler's memory figures are differences of these around an operator; keeping them
// costs one thread-local add per buffer.
struct AllocationCounts {
  std::int64_t allocated = 0;
  std::int64_t freed = 0;
};
AllocationCounts thread_allocation_counts();

}  // namespace symbolite::tensor
