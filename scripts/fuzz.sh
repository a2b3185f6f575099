#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang and runs each over a scratch copy of its corpus
# for N seconds (default 60). A crash fails the script; the crashing input is left in
# build-fuzz/findings/ to be added to fuzz/corpus/<harness>/ as a regression input.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}

CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSYMBOLITE_FUZZ=ON -DSYMBOLITE_TESTS=OFF -DSYMBOLITE_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)"

mkdir -p build-fuzz/findings
for harness in build-fuzz/bin/*_fuzz; do
  name=$(basename "$harness" _fuzz)
  work=build-fuzz/corpus-work/$name
  rm -rf "$work"; mkdir -p "$work"
  cp -r fuzz/corpus/"$name"/. "$work"/ 2>/dev/null || true
  dict=()
  for d in fuzz/dictionaries/"$name".dict; do [ -f "$d" ] && dict=(-dict="$d"); done
  echo "-- $name: ${seconds}s"
  "$harness" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix=build-fuzz/findings/"$name"- \
    "${dict[@]}" "$work" 2>&1 | grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY)' || true
  if ls build-fuzz/findings/"$name"-* >/dev/null 2>&1; then
    echo "fuzz finding for $name: $(ls build-fuzz/findings/"$name"-*)"; exit 1
  fi
done
