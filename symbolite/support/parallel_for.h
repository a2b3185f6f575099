// Intra-op parallelism: one process-wide pool of worker threads that kernels split their
// loops over (`parallel_for`), and the thread count everything follows — the pool, and the
// GEMM library's own threads (ops/cpu/gemm.cpp), so the two never run more threads than
// asked for between them.
//
// Default: the hardware threads this process may run on (machine_threads; as PyTorch uses
// its cores), or SYMBOLITE_NUM_THREADS when set; `symbolite run|profile|bench --threads N` and the library's
// set_intra_op_threads change it. Loops split over independent output elements, so results
// do not depend on the thread count; GEMMs are cut into the same blocks at every thread count
// (fixed_pieces); only oneDNN's convolution primitives, one per block of the output, may round
// differently (docs/PERFORMANCE.md, "Threads").
//
// A parallel_for inside another (a kernel called from a worker), or one started while another
// thread's parallel_for holds the pool (two models run at once), runs inline on its caller:
// never a deadlock, never more threads than the setting.
#pragma once

#include <cstdint>
#include <functional>

namespace symbolite {

// Threads a kernel may use, counting the caller (at least 1).
int intra_op_threads();
// `threads` <= 0: the default (SYMBOLITE_NUM_THREADS, else machine_threads()).
void set_intra_op_threads(int threads);
// The hardware threads this process may run on: its CPU affinity (`taskset`, a container's
// cpuset), which std::thread::hardware_concurrency ignores — it counts the machine's.
int machine_threads();
// The thread count a loop of `n` items in grains of `grain` would use here and now: 1 when
// nested inside a parallel_for or when the work is too small to split.
int threads_for(std::int64_t n, std::int64_t grain);
// The pieces a loop of `n` items in grains of `grain` is cut into when each piece is computed
// on its own and its results depend on the piece's extent (oneDNN's GEMM picks its kernel and
// blocking by the block's shape, more so without AVX-512): the work and machine_threads()
// decide, never the thread setting nor nesting, so the same pieces — and the same bits — come
// out at every thread count. Between 1 and machine_threads().
int fixed_pieces(std::int64_t n, std::int64_t grain);
// The grain that splits `n` items into `pieces` ranges: n / pieces rounded down (at least 1).
// Rounded up it would not: 49 items in grains of 25 make one range, not two.
std::int64_t grain_for_pieces(std::int64_t n, int pieces);

// Calls body(begin, end) over disjoint ranges covering [0, n), each at least `grain` long
// (but the last), on up to intra_op_threads() threads; returns when all are done. The first
// exception a range throws is rethrown here after every range has finished.
void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t begin, std::int64_t end)>& body);

}  // namespace symbolite
