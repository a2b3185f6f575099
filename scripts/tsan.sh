#!/usr/bin/env bash
# Builds the unit tests under ThreadSanitizer (build-tsan) and runs the ones that use threads:
# one model run from many threads at once, and a run cancelled from another thread. A full
# sanitizer build takes about as long as the ASan one, so this runs by hand, not in CI;
# results go in docs/RELIABILITY.md ("Concurrency").
#   scripts/tsan.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYMBOLITE_TSAN=ON >/dev/null
cmake --build build-tsan -j"$(nproc)" --target symbolite_tests
# libgomp (oneDNN's OpenMP) is not instrumented: its internal synchronisation would be reported
# as races. symbolite runs its GEMMs with one OpenMP thread (ops/cpu/gemm.cpp), so none of them
# cross threads of ours.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" OMP_NUM_THREADS=1 \
  build-tsan/bin/symbolite_tests --gtest_filter='ConcurrentRun.*:RunBudget.CancelFromAnotherThread'
