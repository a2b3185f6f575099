#!/usr/bin/env python3
"""Lowering benchmark: each zoo model run by symbolite as it is, lowered to the `eager`
delegate (the same kernels behind a delegate call) and lowered to the `xnnpack` delegate
(XNNPACK operators), in one run: median latency (warm-up, then RUNS timed runs), load time
and peak RSS, one thread everywhere (SYMBOLITE_NUM_THREADS unset).

  /usr/bin/python3 bench/run_lowered_bench.py --build build [--models DIR] [--runs 20]

Prints the markdown table recorded in docs/PERFORMANCE.md.
"""
import json
import os
import subprocess

from run_runtime_bench import MODELS
from zoo import symbolite_bench, zoo_image, zoo_models, zoo_parser  # noqa: E402  (bench/zoo.py)


def main():
    parser = zoo_parser(__doc__.split("\n\n")[0], runs=20)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    work, models = zoo_models(args.models)
    image = zoo_image(work)
    symbolite = os.path.join(args.build, "bin", "symbolite")
    env = dict(os.environ)
    env.pop("SYMBOLITE_NUM_THREADS", None)
    rows = []
    for name in MODELS:
        path = os.path.join(models, name + ".ptl")
        cells = [name]
        base = symbolite_bench(symbolite, path, image, args.runs, args.warmup, env)
        cells.append(f"{base[0]:.1f}")
        for backend in ("eager", "xnnpack"):
            lowered = os.path.join(work, f"{name}.{backend}.ptl")
            report = json.loads(subprocess.run([symbolite, "lower", path, "--backend", backend, "-o", lowered,
                                                "--json"], check=True, capture_output=True, text=True).stdout)
            nodes = sum(len(p["delegate_nodes"]) for p in report["partitions"])
            median, load, rss = symbolite_bench(symbolite, lowered, image, args.runs, args.warmup, env)
            cells += [f"{median:.1f} ({base[0] / median:.2f}x)", f"{len(report['partitions'])} / {nodes}",
                      f"{load:.0f}", f"{rss:.0f}"]
        cells.insert(2, f"{base[1]:.0f}")
        cells.insert(3, f"{base[2]:.0f}")
        rows.append("| " + " | ".join(cells) + " |")
    print(f"Input 1x3x224x224, {args.runs} timed runs after {args.warmup} warm-up, one thread.")
    print()
    print("| model | not lowered (ms) | load (ms) | RSS (MiB) | eager (ms, speed-up) | eager partitions / nodes "
          "| load | RSS | xnnpack (ms, speed-up) | xnnpack partitions / nodes | load | RSS |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
