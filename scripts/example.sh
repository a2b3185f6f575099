#!/usr/bin/env bash
# Builds symbolite and runs its main job on the shipped example model: inspect it, then turn
# the debug handle from a real PyTorch crash log back into the model-level traceback.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSYMBOLITE_TESTS=OFF >/dev/null
cmake --build build --target symbolite -j"$(nproc)"

echo; echo '$ symbolite inspect examples/nested.ptl'
build/bin/symbolite inspect examples/nested.ptl
echo; echo '$ symbolite symbolicate examples/nested_stripped_crash.log < crash log'
cat examples/crash.log
echo
build/bin/symbolite symbolicate examples/nested.ptl - < examples/crash.log
