#!/usr/bin/env bash
# Builds symbolite and runs its main job on the shipped example model: inspect it, then turn
# the debug handle in a real PyTorch crash log (examples/crash.log, printed by PyTorch 1.13
# for the stripped copy of the model) back into the model-level traceback.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh build
cmake -S . -B build-example -DCMAKE_BUILD_TYPE=Release -DSYMBOLITE_TESTS=OFF >/dev/null
cmake --build build-example --target symbolite -j"$(nproc)"

model=tests/fixtures/models/nested.ptl
run() { echo; echo "\$ symbolite $*"; build-example/bin/symbolite "$@"; }

run inspect "$model"
echo; echo "\$ cat examples/crash.log"; cat examples/crash.log
run symbolicate "$model" - < examples/crash.log
