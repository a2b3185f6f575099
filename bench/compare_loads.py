#!/usr/bin/env python3
"""Load times of two symbolite binaries on the same models, alternated in fresh processes so
that the machine's drift falls on both alike: the median of ROUNDS loads each.

  /usr/bin/python3 bench/compare_loads.py --cache /tmp/peer-zoo --rounds 7 OLD NEW \
      [--models mobilenet_v3_small,shufflenet_v2_x0_5]

CACHE holds NAME.ptl and NAME.npy (run_peer_bench.py --cache writes them). Each load is
`symbolite bench NAME.ptl --input NAME.npy --runs 1 --warmup 0 --threads 1 --json`'s load_ms.
"""
import argparse
import json
import os
import statistics
import subprocess

MODELS = ["mobilenet_v3_small", "shufflenet_v2_x0_5", "squeezenet1_1", "mnasnet0_5", "resnet18",
          "efficientnet_b0", "mobilenet_v2"]


def load_ms(binary, cache, model):
    done = subprocess.run([binary, "bench", os.path.join(cache, model + ".ptl"), "--input",
                           os.path.join(cache, model + ".npy"), "--runs", "1", "--warmup", "0",
                           "--threads", "1", "--json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["load_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--cache", required=True)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    print("| model | load before (ms) | after (ms) |\n|---|---:|---:|")
    for model in args.models.split(","):
        old, new = [], []
        for _ in range(args.rounds):
            old.append(load_ms(args.old, args.cache, model))
            new.append(load_ms(args.new, args.cache, model))
        print(f"| {model} | {statistics.median(old):.2f} | {statistics.median(new):.2f} |")


if __name__ == "__main__":
    main()
