// parallel_for: every index once, any thread count, nested and concurrent calls inline, the
// first exception rethrown after the other ranges finish, every range under the caller's
// floating-point control.
#include "symbolite/support/parallel_for.h"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/support/float_control.h"

namespace symbolite {
namespace {

// Restores the process-wide setting a test changes.
struct ThreadSetting {
  explicit ThreadSetting(int n) : previous(intra_op_threads()) { set_intra_op_threads(n); }
  ~ThreadSetting() { set_intra_op_threads(previous); }
  int previous;
};

TEST(ParallelFor, CoversEveryIndexOnceAtAnyThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadSetting setting(threads);
    for (std::int64_t n : {0, 1, 7, 1000, 100003}) {
      std::vector<std::atomic<int>> seen(static_cast<std::size_t>(n));
      parallel_for(n, 10, [&](std::int64_t begin, std::int64_t end) {
        EXPECT_LT(begin, end);
        for (std::int64_t i = begin; i < end; ++i) seen[static_cast<std::size_t>(i)]++;
      });
      for (std::int64_t i = 0; i < n; ++i)
        ASSERT_EQ(seen[static_cast<std::size_t>(i)].load(), 1) << threads << " " << n;
    }
  }
}

// A host that computes with flush-to-zero, or a kernel that reads subnormals as zero
// (float_control.h), gets the same on the workers: results do not depend on the thread count.
TEST(ParallelFor, RangesRunUnderTheCallersFloatControl) {
  if (kDenormalsAreZero == 0) GTEST_SKIP() << "no floating-point control here";
  ThreadSetting setting(3);
  const FloatControl outside = current_float_control();
  const FloatControl inside = outside | kDenormalsAreZero | 0x8000 | 0x6000;  // FTZ, to zero
  for (int round = 0; round < 2; ++round) {
    std::vector<FloatControl> seen(300);
    std::atomic<int> other_threads{0};
    const auto caller = std::this_thread::get_id();
    {
      ScopedFloatControl scope(round == 0 ? inside : outside);
      parallel_for(300, 1, [&](std::int64_t begin, std::int64_t end) {
        if (std::this_thread::get_id() != caller) ++other_threads;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // time for workers to wake
        for (std::int64_t i = begin; i < end; ++i) {
          seen[static_cast<std::size_t>(i)] = current_float_control();
        }
      });
    }
    EXPECT_GT(other_threads.load(), 0);
    for (FloatControl control : seen) ASSERT_EQ(control, round == 0 ? inside : outside);
    EXPECT_EQ(current_float_control(), outside);
  }
}

TEST(ParallelFor, SmallWorkAndNestedCallsStayOnTheCaller) {
  ThreadSetting setting(4);
  EXPECT_EQ(threads_for(100, 1000), 1);
  EXPECT_EQ(threads_for(100000, 1000), 4);
  const auto caller = std::this_thread::get_id();
  parallel_for(5, 1000,
               [&](std::int64_t, std::int64_t) { EXPECT_EQ(std::this_thread::get_id(), caller); });
  std::atomic<int> inner_threads{0};
  parallel_for(4000, 1000, [&](std::int64_t, std::int64_t) {
    inner_threads = threads_for(100000, 1000);
    const auto outer = std::this_thread::get_id();
    parallel_for(100000, 1000,
                 [&](std::int64_t, std::int64_t) { EXPECT_EQ(std::this_thread::get_id(), outer); });
  });
  EXPECT_EQ(inner_threads.load(), 1);
}

TEST(ParallelFor, TheFirstExceptionReachesTheCaller) {
  ThreadSetting setting(3);
  std::atomic<int> ranges{0};
  EXPECT_THROW(parallel_for(3000, 1000,
                            [&](std::int64_t begin, std::int64_t) {
                              ++ranges;
                              if (begin == 0) throw std::runtime_error("range 0");
                            }),
               std::runtime_error);
  EXPECT_EQ(ranges.load(), 3);  // the others still ran to the end
  // The pool is usable after a failure.
  std::atomic<std::int64_t> sum{0};
  parallel_for(3000, 1000, [&](std::int64_t b, std::int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 3000);
}

TEST(ParallelFor, ConcurrentCallersEachFinishTheirOwnWork) {
  ThreadSetting setting(2);
  std::vector<std::thread> callers;
  std::atomic<std::int64_t> total{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        parallel_for(10000, 100, [&](std::int64_t b, std::int64_t e) { total += e - b; });
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(total.load(), 4 * 50 * 10000);
}

// A loop split in one range per thread — a GEMM in blocks of rows or columns — gets a range
// per thread even when the length is not a multiple of the count (49 column blocks on two
// threads ran as one before).
TEST(ParallelFor, GrainForPiecesGivesEveryThreadARange) {
  for (int threads : {2, 3, 4}) {
    ThreadSetting setting(threads);
    for (std::int64_t n : {49, 101, 1001}) {
      std::atomic<int> ranges{0};
      std::atomic<std::int64_t> shortest{n};
      parallel_for(n, grain_for_pieces(n, threads), [&](std::int64_t begin, std::int64_t end) {
        ++ranges;
        std::int64_t now = shortest.load();
        while (end - begin < now && !shortest.compare_exchange_weak(now, end - begin)) {
        }
      });
      EXPECT_EQ(ranges.load(), threads) << n;
      EXPECT_GE(shortest.load(), n / threads) << n;
    }
  }
  EXPECT_EQ(grain_for_pieces(5, 0), 5);
  EXPECT_EQ(grain_for_pieces(1, 4), 1);
}

TEST(ParallelFor, TheSettingIsClampedAndResets) {
  ThreadSetting setting(1);
  EXPECT_EQ(intra_op_threads(), 1);
  set_intra_op_threads(5000);
  EXPECT_EQ(intra_op_threads(), 1024);
  set_intra_op_threads(0);  // the default
  EXPECT_GE(intra_op_threads(), 1);
}

// Pinned to one CPU (as `taskset -c 0` pins a process), the default is one thread however
// many the machine has, and products are cut for one.
TEST(ParallelFor, TheDefaultFollowsTheCpusThisProcessMayUse) {
  cpu_set_t allowed;
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  EXPECT_EQ(machine_threads(), CPU_COUNT(&allowed));
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "one CPU allowed already";
  if (std::getenv("SYMBOLITE_NUM_THREADS") != nullptr) GTEST_SKIP() << "the variable decides";
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ThreadSetting setting(3);
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);  // this thread only
  EXPECT_EQ(machine_threads(), 1);
  set_intra_op_threads(0);
  EXPECT_EQ(intra_op_threads(), 1);
  ASSERT_EQ(::sched_setaffinity(0, sizeof allowed, &allowed), 0);
  set_intra_op_threads(0);
  EXPECT_EQ(intra_op_threads(), CPU_COUNT(&allowed));
}

}  // namespace
}  // namespace symbolite
