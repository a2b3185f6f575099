#!/usr/bin/env python3
"""Profiler overhead on the zoo: `symbolite bench` with no sink, with a sink recording time
only (`--profile`), and with shapes, FLOPs and memory too (`--profile-details`), interleaved
so that drifts in machine load hit all three alike. Prints the table of docs/PERFORMANCE.md.

  /usr/bin/python3 bench/run_profiler_bench.py --build build [--models DIR] [--runs 30] [--rounds 2]
"""
import os
import re
import statistics
import subprocess

from zoo import zoo_image, zoo_models, zoo_parser  # noqa: E402  (bench/zoo.py)

MODELS = ["mobilenet_v3_small", "resnet18", "efficientnet_b0"]
MODES = {"off": [], "time": ["--profile"], "all details": ["--profile-details"]}


def median_ms(symbolite, model, image, runs, extra):
    out = subprocess.run([symbolite, "bench", model, "--input", image, "--runs", str(runs),
                          "--warmup", "3", *extra], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median ([\d.]+) ms", out).group(1))


def main():
    parser = zoo_parser(__doc__.split("\n\n")[0], runs=30)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    work, models = zoo_models(args.models)
    image = zoo_image(work)
    symbolite = os.path.join(args.build, "bin", "symbolite")
    print(f"Input 1x3x224x224; median of {args.runs} runs per mode, {args.rounds} interleaved "
          f"rounds (median of the rounds' medians).")
    print()
    print("| model | off (ms) | time only (ms) | overhead | all details (ms) | overhead |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in MODELS:
        path = os.path.join(models, name + ".ptl")
        times = {mode: [] for mode in MODES}
        for _ in range(args.rounds):
            for mode, extra in MODES.items():
                times[mode].append(median_ms(symbolite, path, image, args.runs, extra))
        off, on, full = (statistics.median(times[m]) for m in MODES)
        print(f"| {name} | {off:.2f} | {on:.2f} | {100 * (on / off - 1):+.1f} % "
              f"| {full:.2f} | {100 * (full / off - 1):+.1f} % |")


if __name__ == "__main__":
    main()
