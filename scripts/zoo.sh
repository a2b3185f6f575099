#!/usr/bin/env bash
# By hand, not in CI (about 5 minutes on 2 cores): every model of the coverage population run
# in symbolite and in PyTorch 1.13's lite interpreter, then docs/OPERATORS.md regenerated.
#   1. every torchvision 0.14 zoo model (tests/interop/run_zoo_models.py; table in docs/MODELS.md)
#   2. every torch.nn family and TorchScript builtin case (tests/interop/survey_nn_families.py),
#      recording which operators each matching case calls (tests/interop/survey_operators.json)
#   3. docs/OPERATORS.md from `symbolite operators` and those records
#   scripts/zoo.sh [BUILD_DIR]     (default: build; it must hold bin/symbolite)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
symbolite=$build/bin/symbolite
[ -x "$symbolite" ] || { echo "zoo.sh: no $symbolite: build first (README)" >&2; exit 2; }
python=/usr/bin/python3   # Debian's, with torch 1.13 (scripts/install-deps.sh test)
start=$SECONDS
echo "== torchvision zoo"
"$python" tests/interop/run_zoo_models.py --symbolite "$symbolite"
echo "== torch.nn families and builtins"
"$python" tests/interop/survey_nn_families.py --symbolite "$symbolite" \
  --markdown "$build/survey.md" --operators tests/interop/survey_operators.json
echo "== docs/OPERATORS.md"
"$python" scripts/make_operators_doc.py --symbolite "$symbolite"
echo "zoo.sh: done in $((SECONDS - start)) s; survey report in $build/survey.md"
