// Sets the intra-op thread count (support/parallel_for.h) for a test's scope and restores the
// default after it, so a failing assertion cannot leave the next test on another count.
#pragma once

#include "symbolite/support/parallel_for.h"

namespace symbolite::testing {

class ThreadSetting {
 public:
  explicit ThreadSetting(int threads) { set_intra_op_threads(threads); }
  ~ThreadSetting() { set_intra_op_threads(0); }
  ThreadSetting(const ThreadSetting&) = delete;
  ThreadSetting& operator=(const ThreadSetting&) = delete;
};

}  // namespace symbolite::testing
