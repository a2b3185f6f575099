#!/usr/bin/env bash
# Builds and runs every test: the unit tests and the PyTorch interop suite (warnings are
# errors), the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer, the
# threaded tests under ThreadSanitizer, and a short run of every fuzz harness over its corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/install-deps.sh test

echo "== build (Werror) and test"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYMBOLITE_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== ASan + UBSan build and unit tests"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSYMBOLITE_WERROR=ON -DSYMBOLITE_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -E "^(interop|valgrind)"

echo "== ThreadSanitizer: one model run from many threads, a run cancelled from another"
scripts/tsan.sh

echo "== fuzz harnesses (short run each)"
scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
