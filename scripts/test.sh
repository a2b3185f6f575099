#!/usr/bin/env bash
# Builds and runs every test: the unit tests and the PyTorch interop suite (warnings are
# errors), the unit tests again on emulated AVX2 and baseline CPUs, the unit tests and every
# fuzz corpus again under AddressSanitizer + UndefinedBehaviorSanitizer, and the threaded
# tests under ThreadSanitizer.
#   scripts/test.sh                    what CI runs (about an hour on 2 cores)
#   FUZZ_SECONDS=60 scripts/test.sh    also a clang libFuzzer build and that many seconds of
#                                      fuzzing per harness (scripts/fuzz.sh; by hand)
# CI's trees carry line tables only (-g1): full debug info costs a third of the build time
# and sanitizer and Valgrind reports need only file and line. They compile in unity batches
# (CMAKE_UNITY_BUILD: eight sources per translation unit, the optimized tree's kernels one
# by one), which halves the build on 2 cores; docs/ARCHITECTURE.md "CI builds in batches".
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# Each stage's header says how long CI has run so far: the record of where its time goes.
stage() { echo "== $* [${SECONDS} s in]"; }

scripts/install-deps.sh test

stage "build (Werror) and test"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYMBOLITE_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
# clang-format with zero findings; clang-tidy with zero findings on the sources changed since
# its last full run (scripts/lint.sh --all, by hand: all of them take longer than CI's limit).
stage "lint"
scripts/lint.sh
# ctest ran every test at the machine's thread count (support/parallel_for.h); the unit and
# thread tests again on one thread, where no kernel splits its work.
stage "unit and thread tests on one thread"
SYMBOLITE_NUM_THREADS=1 build/bin/symbolite_tests --gtest_brief=1
SYMBOLITE_NUM_THREADS=1 build/bin/symbolite_thread_tests --gtest_brief=1
# The kernels' x86-64 baseline paths, and on an AVX-512 machine their AVX2 ones too: the same
# binaries under QEMU's emulation of a Nehalem (and a Haswell).
stage "emulated instruction sets"
scripts/isa_paths.sh build

# The unit tests run as one process per shard here rather than one per test case through
# ctest: a sanitizer process takes a second to start, and there are over a thousand cases.
stage "ASan + UBSan build: unit tests and every fuzz corpus replayed"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSYMBOLITE_WERROR=ON -DSYMBOLITE_SANITIZE=ON \
  -DSYMBOLITE_FUZZ_REPLAY=ON -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build-asan -j"$jobs"
# Helpers two sources of a target define alike, which the unity batches would put together as
# soon as a file is added or removed (1 minute: every target's sources as one syntax-only unit;
# after the build, which generates some of them).
scripts/unity_collisions.py build-asan
stage "ASan + UBSan: unit tests ($jobs shards), thread tests, fuzz corpora"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
pids=()
for shard in $(seq 0 $((jobs - 1))); do
  GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$shard build-asan/bin/symbolite_tests \
    --gtest_brief=1 > build-asan/unit-shard-"$shard".log 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "-- ASan unit tests, shard $i failed:"; cat build-asan/unit-shard-"$i".log; failed=1
  fi
done
[ "$failed" = 0 ] || exit 1
build-asan/bin/symbolite_thread_tests --gtest_brief=1
ctest --test-dir build-asan --output-on-failure -j"$jobs" -R "^(fuzz\.replay|layering)"

stage "ThreadSanitizer: the worker pool and threaded kernels, one model run from many threads, a run cancelled from another"
scripts/tsan.sh

if [ "${FUZZ_SECONDS:-0}" != 0 ]; then
  stage "fuzz harnesses (${FUZZ_SECONDS}s each)"
  scripts/fuzz.sh "$FUZZ_SECONDS"
fi
stage "all passed"
