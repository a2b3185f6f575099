#include "symbolite/support/parallel_for.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "symbolite/support/float_control.h"

namespace symbolite {
namespace {

// Standard threads, mutex and condition variable rather than Debian's pthreadpool: its
// synchronization is compiled outside ThreadSanitizer's view, which would then report every
// hand-off of data between a kernel and its workers as a race.
// How long an idle worker watches for the next job before it sleeps (and the caller for its
// workers' chunks). Between two parallel operators a model often runs a few small ones on
// the caller alone; a worker asleep by then costs the next one a futex wake-up (tens of
// microseconds on a VM). OpenMP runtimes spin for milliseconds; this is a fifth of one.
constexpr std::chrono::microseconds kSpin{200};

// Chunks a loop is split into per thread (at most; never below its grain).
constexpr std::int64_t kChunksPerThread = 4;

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class WorkerPool {
 public:
  explicit WorkerPool(int workers) {
    threads_.reserve(static_cast<std::size_t>(workers));
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this, i] { work(i + 1); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int workers() const { return static_cast<int>(threads_.size()); }

  // Runs chunk(i) for i in [0, chunks) on the workers and the caller.
  void run(int chunks, const std::function<void(int)>& chunk) {
    auto job = std::make_shared<Job>(chunk, chunks, workers() + 1);
    std::uint64_t generation = 0;
    {
      std::lock_guard lock(mutex_);
      job_ = job;
      generation = ++generation_;
    }
    // Announced to watching workers only once the mutex is free: one that saw it while the
    // caller held the lock would sleep on the mutex and need a futex wake-up (microseconds).
    published_.store(generation, std::memory_order_release);
    wake_.notify_all();
    take_chunks(*job, 0);
    // The workers' chunks usually finish within microseconds of the caller's: watch for that
    // before sleeping, as a futex wake-up of the caller costs more than most chunks. Seen
    // done, the caller takes no lock (a worker may still hold it a moment): `job_` stays
    // until the next run replaces it, every share taken.
    const auto until = std::chrono::steady_clock::now() + kSpin;
    while (job->pending.load(std::memory_order_acquire) != 0 &&
           std::chrono::steady_clock::now() < until) {
      pause();
    }
    if (job->pending.load() == 0) return;
    std::unique_lock lock(mutex_);
    job->caller_waiting.store(true);  // before `pending` is read again: no lost wake-up
    done_.wait(lock, [&] { return job->pending.load() == 0; });
  }

 private:
  // One parallel_for's chunks, dealt out in contiguous shares, one per thread (the caller
  // is thread 0): each thread runs its own share first, in order, then takes what is left of
  // the others'. So a thread works on the same part of the data from one operator to the
  // next, which its core's cache holds from the last (an operator reading what another
  // core's cache holds runs slower on two threads than on one), while a worker that wakes late
  // still leaves its share to whoever is free. A worker that wakes after the job is done
  // finds every share taken, so it can never run a finished job's function.
  struct Job {
    Job(const std::function<void(int)>& f, int n, int threads)
        : chunk(f), shares(static_cast<std::size_t>(threads)), pending(n) {
      for (int t = 0; t < threads; ++t) {
        Share& share = shares[static_cast<std::size_t>(t)];
        share.next.store(static_cast<int>(std::int64_t{n} * t / threads));
        share.end = static_cast<int>(std::int64_t{n} * (t + 1) / threads);
      }
    }
    const std::function<void(int)>& chunk;
    struct Share {
      std::atomic<int> next{0};
      int end = 0;
    };
    std::vector<Share> shares;
    std::atomic<int> pending;
    std::atomic<bool> caller_waiting{false};
  };

  void take_chunks(Job& job, int self) {
    const auto threads = static_cast<int>(job.shares.size());
    for (int k = 0; k < threads; ++k) {
      Job::Share& share = job.shares[static_cast<std::size_t>((self + k) % threads)];
      for (int i = share.next.fetch_add(1); i < share.end; i = share.next.fetch_add(1)) {
        job.chunk(i);
        // The last chunk wakes the caller if it went to sleep; it checks `pending` under the
        // lock after saying so, and this reads the flag after `pending` changed.
        if (job.pending.fetch_sub(1) == 1 && job.caller_waiting.load()) {
          std::lock_guard lock(mutex_);
          done_.notify_all();
        }
      }
    }
  }

  void work(int self) {
    std::uint64_t seen = 0;
    for (;;) {
      // Operators come microseconds apart: a worker that slept would need a futex wake-up
      // (tens of microseconds) for each, more than many operators take. So it watches for the
      // next job a short while before sleeping.
      const auto until = std::chrono::steady_clock::now() + kSpin;
      while (published_.load(std::memory_order_acquire) == seen &&
             std::chrono::steady_clock::now() < until) {
        pause();
      }
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        job = job_;
      }
      if (job) take_chunks(*job, self);
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::shared_ptr<Job> job_;
  std::uint64_t generation_ = 0;
  std::atomic<std::uint64_t> published_{0};  // generation_, for workers watching without the lock
  bool stopping_ = false;
};

int default_threads() {
  if (const char* env = std::getenv("SYMBOLITE_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return std::min(n, 1024);
  }
  return machine_threads();
}

std::atomic<int>& thread_setting() {
  static std::atomic<int> threads{default_threads()};
  return threads;
}

// One pool at a time; a caller that finds it busy runs inline instead of waiting.
std::mutex& pool_mutex() {
  static std::mutex m;
  return m;
}
std::unique_ptr<WorkerPool>& pool() {
  static std::unique_ptr<WorkerPool> p;
  return p;
}

thread_local bool inside_parallel_for = false;

}  // namespace

int intra_op_threads() { return thread_setting().load(std::memory_order_relaxed); }

void set_intra_op_threads(int threads) {
  thread_setting().store(threads <= 0 ? default_threads() : std::min(threads, 1024));
}

int threads_for(std::int64_t n, std::int64_t grain) {
  if (inside_parallel_for) return 1;
  const std::int64_t pieces = grain <= 0 ? n : n / grain;
  return static_cast<int>(std::clamp<std::int64_t>(pieces, 1, intra_op_threads()));
}

int machine_threads() {
  // sched_getaffinity fails past the 1024 CPUs a cpu_set_t holds: all of them, then.
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0) {
    return CPU_COUNT(&allowed);
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int fixed_pieces(std::int64_t n, std::int64_t grain) {
  static const std::int64_t hardware = machine_threads();
  const std::int64_t pieces = grain <= 0 ? n : n / grain;
  return static_cast<int>(std::clamp<std::int64_t>(pieces, 1, hardware));
}

std::int64_t grain_for_pieces(std::int64_t n, int pieces) {
  return std::max<std::int64_t>(1, n / std::max(1, pieces));
}

void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t begin, std::int64_t end)>& body) {
  if (n <= 0) return;
  const int threads = threads_for(n, grain);
  std::unique_lock lock(pool_mutex(), std::defer_lock);
  if (threads <= 1 || !lock.try_lock()) {
    body(0, n);
    return;
  }
  // The pool has a worker per thread setting (less the caller), whatever this loop uses: a
  // loop split fewer ways leaves some idle rather than replacing the pool.
  const int workers = intra_op_threads() - 1;
  if (!pool() || pool()->workers() != workers) {
    pool().reset();  // a different thread setting: new workers
    pool() = std::make_unique<WorkerPool>(workers);
  }
  // A few chunks per thread, each at least `grain`: a worker that wakes late (or a core
  // taken by another process) leaves its share to whoever is free instead of holding the
  // loop up.
  const std::int64_t pieces = grain <= 0 ? n : std::max<std::int64_t>(1, n / grain);
  const auto chunks =
      static_cast<int>(std::min<std::int64_t>(pieces, std::int64_t{threads} * kChunksPerThread));
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const FloatControl control = current_float_control();
  pool()->run(chunks, [&](int i) {
    // Lengths differ by one at most (49 items in 3 chunks: 17, 16, 16, not 17, 17, 15).
    const std::int64_t base = n / chunks, extra = n % chunks;
    const std::int64_t begin = base * i + std::min<std::int64_t>(i, extra);
    const std::int64_t end = begin + base + (i < extra ? 1 : 0);
    if (begin >= end) return;
    // The caller's rounding and subnormal handling, on whichever thread runs the range.
    ScopedFloatControl same(control);
    inside_parallel_for = true;
    try {
      body(begin, end);
    } catch (...) {
      std::lock_guard guard(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
    inside_parallel_for = false;
  });
  if (failure) std::rethrow_exception(failure);
}

}  // namespace symbolite
