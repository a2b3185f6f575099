#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang and runs each over a scratch copy of its corpus
# for N seconds (default 60), as many at once as there are cores. A crash fails the script;
# the crashing input is left in build-fuzz/findings/ to be added to fuzz/corpus/<harness>/
# as a regression input.
#   scripts/fuzz.sh [SECONDS]     each harness for SECONDS (default 60; what CI runs)
#   scripts/fuzz.sh --hours N     each harness for N hours, by hand: one line per harness
#                                 (date, hours, executions, findings) is appended to
#                                 fuzz/hours.log, the record docs/RELIABILITY.md sums up
set -euo pipefail
cd "$(dirname "$0")/.."
hours=""
if [ "${1:-}" = "--hours" ]; then
  hours=${2:?"--hours needs a number of hours"}
  seconds=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }')
else
  seconds=${1:-60}
fi

CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSYMBOLITE_FUZZ=ON -DSYMBOLITE_TESTS=OFF -DSYMBOLITE_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)"

# One harness: its final stats go to build-fuzz/logs/<name>.log.
fuzz_one() {
  local harness=$1 name work dict=()
  name=$(basename "$harness" _fuzz)
  work=build-fuzz/corpus-work/$name
  rm -rf "$work"; mkdir -p "$work"
  cp -r fuzz/corpus/"$name"/. "$work"/ 2>/dev/null || true
  [ -f fuzz/dictionaries/"$name".dict ] && dict=(-dict=fuzz/dictionaries/"$name".dict)
  "$harness" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix=build-fuzz/findings/"$name"- "${dict[@]}" "$work" \
    > build-fuzz/logs/"$name".log 2>&1 || true
}

mkdir -p build-fuzz/findings build-fuzz/logs
rm -f build-fuzz/findings/* build-fuzz/logs/*
harnesses=(build-fuzz/bin/*_fuzz)
running=0
for harness in "${harnesses[@]}"; do
  fuzz_one "$harness" &
  running=$((running + 1))
  if [ "$running" -ge "$(nproc)" ]; then wait -n; running=$((running - 1)); fi
done
wait

failed=0
for harness in "${harnesses[@]}"; do
  name=$(basename "$harness" _fuzz)
  echo "-- $name: ${seconds}s"
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY)' build-fuzz/logs/"$name".log || true
  found=0
  if ls build-fuzz/findings/"$name"-* >/dev/null 2>&1; then
    echo "fuzz finding for $name: $(ls build-fuzz/findings/"$name"-*)"
    failed=1
    found=$(ls build-fuzz/findings/"$name"-* | wc -l)
  fi
  if [ -n "$hours" ]; then
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' build-fuzz/logs/"$name".log | grep -oE '[0-9]+$' || echo 0)
    echo "$(date -u +%Y-%m-%d) $name hours=$hours executions=$execs findings=$found" >> fuzz/hours.log
  fi
done
exit "$failed"
