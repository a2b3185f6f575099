#!/usr/bin/env bash
# The style and static checks CI runs (scripts/test.sh), with zero findings allowed:
#   clang-format (.clang-format) over every C++ file of the repository but the fixtures, and
#   clang-tidy (.clang-tidy) over the library's sources (symbolite/, tests beside them
#   excluded), with the compile commands of an existing build tree.
# Usage: scripts/lint.sh [BUILD_DIR]    (default: build; configure it first)
#   clang-format -i FILE    applies the format to a file
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
jobs=$(nproc)

mapfile -t cxx < <(git ls-files '*.cpp' '*.h' | grep -v '^tests/fixtures/')
echo "== clang-format: ${#cxx[@]} files"
clang-format --dry-run --Werror "${cxx[@]}"

if [ ! -f "$build/compile_commands.json" ]; then
  echo "lint: $build/compile_commands.json is missing: configure $build first" >&2
  exit 2
fi
# The plugin against libtorch is built with PyTorch's flags, and its headers are not ours.
mapfile -t sources < <(git ls-files 'symbolite/*.cpp' | grep -v '_test\.cpp$' | grep -v '^symbolite/torch_plugin/')
echo "== clang-tidy: ${#sources[@]} files"
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
echo "lint: clean"
