#!/usr/bin/env bash
# Builds the tests that use threads under ThreadSanitizer (build-tsan, the runtime and the
# layers below it only) and runs them: the intra-op worker pool and the kernels that split
# their work over it, one model run from many threads at once, and a run cancelled from
# another thread. scripts/test.sh (CI) runs it after the ASan step.
#   scripts/tsan.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# -O1 with line tables: what ThreadSanitizer's documentation suggests, and quick to build.
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DSYMBOLITE_TSAN=ON -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build-tsan -j"$(nproc)" --target symbolite_thread_tests
# libgomp (oneDNN's OpenMP) is not instrumented: its internal synchronisation would be reported
# as races. symbolite runs its GEMMs with one OpenMP thread (ops/cpu/gemm.cpp) and splits them
# over its own pool (support/parallel_for.h, standard threads TSan sees), so no OpenMP team
# crosses threads of ours. Kernels split their work over 4 threads here whatever the machine.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" OMP_NUM_THREADS=1 SYMBOLITE_NUM_THREADS=4 \
  build-tsan/bin/symbolite_thread_tests
