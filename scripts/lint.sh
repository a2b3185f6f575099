#!/usr/bin/env bash
# The style and static checks, with zero findings allowed:
#   clang-format (.clang-format) over every C++ file of the repository but the fixtures, and
#   clang-tidy (.clang-tidy) over the library's sources (symbolite/, tests beside them
#   excluded), with the compile commands of build-lint/, a tree this script configures and
#   never builds (a unity build's compile commands name its unity sources, not the files).
# Usage: scripts/lint.sh [--all]
#   CI (scripts/test.sh) runs clang-tidy on the sources changed since the commit named in
#   scripts/tidy-baseline (a .cpp, or the .cpp beside a changed .h): on a 2-core machine a run
#   over all of them takes longer than the rest of CI together.
#   --all runs it over every source, and on zero findings in a clean tree moves the baseline
#   to the commit it started on (commit that); run it by hand after changes to headers many
#   sources include.
#   clang-format -i FILE    applies the format to a file
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
for arg in "$@"; do
  case "$arg" in
    --all) all=1 ;;
    *) echo "usage: scripts/lint.sh [--all]" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)
# The commit a full run vouches for: the one checked out when it starts, in a clean tree.
linted=$(git rev-parse HEAD)
[ -z "$(git status --porcelain)" ] || linted=

mapfile -t cxx < <(git ls-files '*.cpp' '*.h' | grep -v '^tests/fixtures/')
echo "== clang-format: ${#cxx[@]} files"
clang-format --dry-run --Werror "${cxx[@]}"

build=build-lint
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=OFF >/dev/null
# The plugin against libtorch is built with PyTorch's flags, and its headers are not ours.
library_sources() { grep '^symbolite/.*\.cpp$' | grep -v '_test\.cpp$' | grep -v '^symbolite/torch_plugin/' || true; }
baseline=$(sed -n 's/^\([0-9a-f]\{40\}\).*/\1/p' scripts/tidy-baseline)
if [ "$all" = 1 ]; then
  mapfile -t sources < <(git ls-files 'symbolite/*.cpp' | library_sources)
elif git cat-file -e "$baseline^{commit}" 2>/dev/null; then
  # Changed or new files, committed or not; a header stands for the source beside it.
  mapfile -t sources < <({ git diff --name-only "$baseline" -- symbolite; git ls-files --others --exclude-standard symbolite; } |
    sed 's/\.h$/.cpp/' | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done | library_sources)
else
  echo "lint: baseline ${baseline:0:12} is not in this clone's history: clang-tidy skipped (scripts/lint.sh --all runs it)" >&2
  sources=()
fi
echo "== clang-tidy: ${#sources[@]} files"
if [ "${#sources[@]}" -ne 0 ]; then
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  # run-clang-tidy's exit status ignores findings without WarningsAsErrors: count them instead.
  run-clang-tidy -p "$build" -j "$jobs" -quiet "${sources[@]/#/$PWD/}" >"$log" 2>&1 || true
  findings=$(grep -cE '(warning|error): ' "$log" || true)
  if [ "$findings" -ne 0 ]; then
    grep -E '(warning|error): ' "$log" | sed 's/\x1b\[[0-9;]*m//g' | sort -u
    echo "lint: clang-tidy: $findings findings" >&2
    exit 1
  fi
fi
if [ "$all" = 1 ] && [ -n "$linted" ]; then
  echo "$linted every library source clang-tidy clean (scripts/lint.sh --all, $(date -u +%F))" >scripts/tidy-baseline
  echo "lint: scripts/tidy-baseline moved to ${linted:0:12}"
fi
echo "lint: clean"
